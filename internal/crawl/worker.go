package crawl

import (
	"context"
	"errors"
	"time"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
)

// process fetches one claimed line and queues its result, links and
// history. A stopping spider (runCtx done) hands unstarted lines back
// unfetched.
func (e *Engine) process(ctx, runCtx context.Context, j job) {
	en := j.en
	res := list.Result{URL: en.URL} // State 0: returned unfetched
	var adds []list.Add
	var rec *meta.Record
	var cp *pageCopy
	defer func() { e.finish(j, res, adds, rec, cp) }()
	if runCtx.Err() != nil || ctx.Err() != nil {
		return
	}
	if now := e.cfg.Now(); j.rec.RetryAt.After(now) {
		// Another spider (or this one before a restart) failed here
		// recently: hand the line back and leave it alone until then.
		e.retry.hold(en.URL, j.rec.RetryAt)
		return
	} else if !j.ahead && e.retry.held(en.URL, now) {
		// Its fetch ahead failed after the pass that claimed it took
		// its snapshot of the backoff (a visited line's answer fetched
		// ahead is not used, decide): hand it back too.
		return
	}
	// ctx (not runCtx): when the stop grace runs out, a job waiting for
	// its politeness slot gives up too.
	if denied, h := e.robotsDenied(ctx, j, &res); denied {
		rec = h
		return
	}
	release, err := e.polite.acquire(ctx, hostOf(en.URL))
	if err != nil {
		return
	}
	began := time.Now()
	resp, err := e.fetch.Get(ctx, en.URL, e.conditional(en, j.rec))
	release(err)
	if err == nil || fetch.Gone(err) || fetch.NotModified(err) {
		e.obs.fetched(hostOf(en.URL), time.Since(began))
	}
	now := e.cfg.Now()
	if err != nil && e.voided(j.epoch, now) {
		// Whatever happened, the line may be another spider's by now.
		return
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled)) {
		return // stopped mid-fetch: hand the line back untouched
	}
	h := attempted(j.rec, en.URL, now)
	rec = &h
	switch {
	case err == nil:
		// The page's links take its level now (levels.go); finish
		// (deferred) records them as links of j.en at that level.
		j.en.Level = e.levelNow(j.en)
		res, adds, cp = e.store(j, resp, rec, now)
		if res.State == 0 {
			rec = nil // dropped: another spider may own the line now
		}
	case fetch.NotModified(err) && en.File != "":
		// The copy is current: its time advances, the file stays.
		*rec = notModified(*rec, now)
		res.State, res.File, res.Modified = list.Downloaded, en.File, now
		e.retry.ok(en.URL)
		e.count(func(s *Summary) { s.Unchanged++ })
		e.log.Debug("not modified", "url", en.URL)
	case fetch.Gone(err):
		var archive bool
		*rec, archive = gone(*rec, err, e.cfg.ArchiveAfter, e.cfg.ConfirmGone, now)
		if !archive {
			// Not confirmed yet: like any failure, the copy is kept and
			// the line waits for the next attempt.
			res.State = list.Error
			if en.State == list.Archived {
				res.State = list.Archived // still gone; keep it archived
			}
			if en.File == "" {
				res.Modified = now
			}
			e.retry.hold(en.URL, rec.RetryAt)
			e.log.Info("not found; archived once confirmed", "url", en.URL, "attempt", rec.NotFound, "of", e.cfg.ArchiveAfter)
			return
		}
		// The copy is kept; the line says the page is gone and since when
		// it was last seen gone, so it is checked again a window later.
		res.State, res.Modified = list.Archived, now
		e.count(func(s *Summary) { s.Archived++ })
		switch {
		case en.State == list.Archived:
		case j.ahead:
			// Noted once a pass takes this answer (taken): the line may
			// be another spider's, or visited, and then fetched again.
			e.log.Debug("gone (fetched ahead)", "url", en.URL, "err", err)
		default:
			e.obs.archived(en.URL, now)
			e.log.Info("gone", "url", en.URL, "err", err)
		}
		e.archive(en, now)
	default:
		// The copy is kept untouched. A line without a copy records the
		// visit, so it is tried again a window later by every spider, not
		// at every pass (a line with a copy keeps the copy's time; every
		// spider waits for the record's retry time).
		*rec = failed(*rec, err, now)
		res.State = list.Error
		if en.File == "" {
			res.Modified = now
		}
		e.retry.hold(en.URL, rec.RetryAt)
		e.count(func(s *Summary) { s.Errors++ })
		e.obs.failed(err)
		e.log.Warn("fetch failed", "url", en.URL, "transient", fetch.Transient(err), "err", err)
	}
}

// store makes the copy of a fetched page that the group commit writes into
// the mirror before the next pass, and extracts its links. A body
// identical to the last one (same checksum) with its copy in place is not
// written again (no copy): the copy's time advances.
func (e *Engine) store(j job, resp *fetch.Response, rec *meta.Record, now time.Time) (list.Result, []list.Add, *pageCopy) {
	en := j.en
	res := list.Result{URL: en.URL}
	var adds []list.Add
	// A redirect's target is a page of its own; the redirecting URL keeps a
	// copy too so links to it work in the mirror.
	for _, u := range append(resp.Redirects, resp.URL) {
		if u != en.URL && e.inScope(u) {
			adds = append(adds, list.Add{URL: u, Level: en.Level})
		}
	}
	if e.voided(j.epoch, now) {
		// The claim may have been taken back and the page fetched again by
		// another spider since; this copy may be older. Hand the line back.
		e.log.Warn("result dropped: the claim may have been taken back while this spider was stopped", "url", en.URL)
		*rec = j.rec
		return res, nil, nil
	}
	sum := checksum(resp.Body)
	file, err := e.cfg.Layout.Path(en.URL, resp.MediaType)
	if err == nil && e.unchanged(en, j.rec, file, sum) {
		*rec = fetchedOK(*rec, resp, sum, false, now)
		e.retry.ok(en.URL)
		res.State, res.File, res.Modified = list.Downloaded, file, now
		e.count(func(s *Summary) { s.Unchanged++ })
		return res, adds, nil
	}
	var body []byte
	var links []extract.Link
	var linksErr error
	if err == nil {
		body, links, linksErr, err = e.transform(file, resp)
	}
	if err != nil {
		*rec = failed(*rec, err, now)
		res.State = list.Error
		e.retry.hold(en.URL, rec.RetryAt)
		e.count(func(s *Summary) { s.Errors++ })
		e.log.Error("mirror write failed", "url", en.URL, "err", err)
		return res, adds, nil
	}
	// Committed before the pass that records it (commit.go); the mirror's
	// index hears of the change once it is on disk.
	cp := &pageCopy{file, body, e.change(en, file, body, now)}
	*rec = fetchedOK(*rec, resp, sum, true, now)
	e.retry.ok(en.URL)
	res.State, res.File, res.Modified = list.Downloaded, file, now
	e.count(func(s *Summary) { s.Fetched++; s.Bytes += int64(len(resp.Body)) })
	e.log.Debug("fetched", "url", en.URL, "status", resp.Status, "bytes", len(resp.Body), "file", file)

	if linksErr != nil {
		e.log.Warn("links not extracted", "url", en.URL, "err", linksErr)
	}
	for i, l := range links {
		if i >= e.cfg.MaxLinks {
			e.log.Warn("too many links, rest ignored", "url", en.URL, "kept", e.cfg.MaxLinks)
			break
		}
		if e.follows(en, l) {
			adds = append(adds, list.Add{URL: l.URL, Level: linkLevel(en.Level, l.Kind)})
		}
	}
	return res, adds, cp
}

func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

func (e *Engine) inScope(u string) bool {
	e.scopeMu.RLock()
	defer e.scopeMu.RUnlock()
	return e.scope[hostOf(u)]
}

// widenScope follows links on the host of a level-0 line from now on.
func (e *Engine) widenScope(u string) {
	h := hostOf(u)
	e.scopeMu.Lock()
	defer e.scopeMu.Unlock()
	if !e.scope[h] {
		e.scope[h] = true
		e.links.reset() // links to h are mirrored from now on
		e.log.Info("following links on a new start host", "host", h)
	}
}

func hostOf(u string) string { return urlkey.Host(u) }

func (e *Engine) count(f func(*Summary)) {
	e.mu.Lock()
	f(&e.sum)
	e.mu.Unlock()
}
