package crawl

import (
	"context"
	"errors"
	"time"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// process fetches one claimed line and queues its result and links. A
// stopping spider (runCtx done) hands unstarted lines back unfetched.
func (e *Engine) process(ctx, runCtx context.Context, j job) {
	en := j.en
	res := list.Result{URL: en.URL} // State 0: returned unfetched
	var adds []list.Add
	defer func() { e.finish(j, res, adds) }()
	if runCtx.Err() != nil || ctx.Err() != nil {
		return
	}
	// ctx (not runCtx): when the stop grace runs out, a job waiting for
	// its politeness slot gives up too.
	if err := e.polite.wait(ctx, hostOf(en.URL)); err != nil {
		return
	}
	began := time.Now()
	resp, err := e.fetch.Get(ctx, en.URL, nil)
	if err == nil || fetch.Gone(err) {
		e.obs.fetched(hostOf(en.URL), time.Since(began))
	}
	now := e.cfg.Now()
	if err != nil && e.voided(j.epoch, now) {
		// Whatever happened, the line may be another spider's by now.
		return
	}
	switch {
	case err == nil:
		res, adds = e.store(j, resp, now)
	case fetch.Gone(err):
		// The copy is kept; the line says the page is gone and since when
		// it was last seen gone, so it is checked again a window later.
		res.State, res.Modified = list.Archived, now
		e.count(func(s *Summary) { s.Archived++ })
		if en.State != list.Archived {
			e.obs.archived(en.URL, now)
		}
		e.log.Info("gone", "url", en.URL, "err", err)
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		// Stopped mid-fetch: hand the line back untouched.
	default:
		// The copy is kept untouched. A line without a copy records the
		// visit, so it is tried again a window later by every spider, not
		// at every pass (a line with a copy keeps the copy's time; the
		// failing spider backs off).
		res.State = list.Error
		if en.File == "" {
			res.Modified = now
		}
		e.retry.fail(en.URL, now)
		e.count(func(s *Summary) { s.Errors++ })
		e.obs.failed(err)
		e.log.Warn("fetch failed", "url", en.URL, "transient", fetch.Transient(err), "err", err)
	}
}

// store writes a fetched page into the mirror and extracts its links.
func (e *Engine) store(j job, resp *fetch.Response, now time.Time) (list.Result, []list.Add) {
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
		return res, nil
	}
	file, err := mirror.Path(en.URL, resp.MediaType)
	body := resp.Body
	if err == nil && isHTML(resp.MediaType) {
		body, err = rewrite.HTML(resp.Body, resp.URL, resp.Header.Get("Content-Type"), e.target(file))
	}
	if err == nil {
		err = e.stage(en.URL, file, body) // committed before the pass that records it (commit.go)
	}
	if err != nil {
		res.State = list.Error
		e.retry.fail(en.URL, now)
		e.count(func(s *Summary) { s.Errors++ })
		e.log.Error("mirror write failed", "url", en.URL, "err", err)
		return res, adds
	}
	e.retry.ok(en.URL)
	res.State, res.File, res.Modified = list.Downloaded, file, now
	e.count(func(s *Summary) { s.Fetched++; s.Bytes += int64(len(resp.Body)) })
	e.log.Debug("fetched", "url", en.URL, "status", resp.Status, "bytes", len(resp.Body), "file", file)

	if isHTML(resp.MediaType) {
		links, err := extract.HTML(resp.URL, resp.Header.Get("Content-Type"), resp.Body)
		if err != nil {
			e.log.Warn("links not extracted", "url", en.URL, "err", err)
		}
		for i, l := range links {
			if i >= e.cfg.MaxLinks {
				e.log.Warn("too many links, rest ignored", "url", en.URL, "kept", e.cfg.MaxLinks)
				break
			}
			if e.inScope(l.URL) && en.Level < list.MaxLevel {
				adds = append(adds, list.Add{URL: l.URL, Level: en.Level + 1})
			}
		}
	}
	return res, adds
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
		e.log.Info("following links on a new start host", "host", h)
	}
}

func hostOf(u string) string { return urlkey.Host(u) }

func (e *Engine) count(f func(*Summary)) {
	e.mu.Lock()
	f(&e.sum)
	e.mu.Unlock()
}
