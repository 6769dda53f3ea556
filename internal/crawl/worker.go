package crawl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/trap"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
)

// job is a line to fetch: a claimed line with the epoch of the pass that
// claimed it and its history, or a line fetched ahead of its claim.
type job struct {
	en    list.Entry
	epoch int64
	rec   meta.Record
	ahead bool
	// inOrder says a line fetched ahead was taken on its turn in claim
	// order (jobs.go): the links it finds are fetched after the others.
	inOrder bool
	// turn is the wait for a paced host's turn that taking the job
	// began (turns.go); nil if the host is not paced.
	turn *turnWait
}

// process fetches one line and returns its outcome. A stopping spider
// (runCtx done) hands unstarted lines back unfetched; ctx ends the fetch
// itself once the stop grace is over.
func (e *Engine) process(ctx, runCtx context.Context, j job) *outcome {
	en := j.en
	o := &outcome{job: j, res: list.Result{URL: en.URL}, epoch: j.epoch} // State 0: returned unfetched
	if runCtx.Err() != nil || ctx.Err() != nil || !e.storage.pausedUntil(time.Now()).IsZero() {
		return o // stopping, or the mirror cannot take the copy (storage.go)
	}
	if now := e.cfg.Now(); j.rec.RetryAt.After(now) {
		// Another spider (or this one before a restart) failed here
		// recently: hand the line back and leave it alone until then.
		e.polite.retry.hold(en.URL, j.rec.RetryAt)
		return o
	} else if !j.ahead && e.polite.retry.held(en.URL, now) {
		// Its fetch ahead failed after the pass that claimed it took
		// its snapshot of the backoff: hand it back too.
		return o
	}
	// The stop grace is for fetches in flight: robots.txt and the wait for
	// the host's turn end with the run, and the line goes back.
	if e.robotsDenied(runCtx, o) {
		return o
	}
	// A copy that forwards to the page the URL redirected to is current as
	// long as the URL redirects there: that page has a line of its own and
	// is not fetched again through the redirect.
	same := e.forwardsTo(en, j.rec)
	resp, took, err := e.polite.get(ctx, runCtx, e.fetch, en.URL, e.conditional(en, j.rec), false, j.turn.came, same)
	redirected := sameRedirect(err, same)
	away, awayStatus := refusedRedirect(err, redirected)
	if why := e.staysAway(en, j.rec, away); why != "" {
		err = fmt.Errorf("fetch: GET %s: redirect to %s not followed (%s): %w", en.URL, clipText(away, 200), why, fetch.ErrRedirectRefused)
		away = ""
	}
	if runCtx.Err() != nil && (errors.Is(err, errHopStopped) || errors.Is(err, runCtx.Err())) {
		return o // stopped before the request, or a redirect hop, could go: the line goes back
	}
	if err == nil || fetch.Gone(err) || fetch.NotModified(err) || redirected != 0 || away != "" {
		e.obs.fetched(hostOf(en.URL), took)
	}
	now := e.cfg.Now()
	if err != nil && e.lease.voided(j.epoch, now) {
		return o // whatever happened, the line may be another spider's by now
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled)) {
		return o // stopped mid-fetch: hand the line back untouched
	}
	rec := history.Attempted(j.rec, en.URL, now)
	o.rec = &rec
	switch {
	case err == nil:
		e.store(o, resp, now)
	case (fetch.NotModified(err) || redirected != 0) && e.keepable(en, j.rec):
		// The copy is current: its time advances, the file stays.
		if redirected != 0 {
			rec = history.Redirected(rec, redirected, now)
		} else {
			rec = history.NotModified(rec, now)
		}
		e.current(o, en.File, now)
		e.log.Debug("not modified", "url", en.URL)
	case away != "":
		e.forwardAway(o, away, awayStatus, now)
	case fetch.Gone(err):
		e.gone(o, err, now)
	default:
		e.failed(o, err, now)
	}
	return o
}

// gone applies a 404 or 410 to the outcome o: archived once confirmed
// (history.Gone), an error until then. The copy is kept either way.
func (e *Engine) gone(o *outcome, err error, now time.Time) {
	en := o.job.en
	if en.File != "" && o.job.rec.NotFound == 0 {
		e.guessLinkers(o, e.linkers.Gone(en.URL), now) // deleted: the pages that listed it changed
	}
	var archive bool
	rule := history.GoneRule{Count: e.cfg.ArchiveAfter, Span: e.cfg.ArchiveSpan}
	*o.rec, archive = history.Gone(*o.rec, err, rule, now)
	if !archive {
		// Not confirmed yet: like any failure, the copy is kept and the
		// line waits for the next attempt.
		o.res.State = failedState(en) // an archived line is still gone
		if en.File == "" {
			o.res.Modified = now
		}
		e.polite.retry.hold(en.URL, o.rec.RetryAt)
		e.obs.warns.note(slog.LevelInfo, "not found; archived once confirmed", en.URL, "attempt", o.rec.NotFound, "of", e.cfg.ArchiveAfter)
		return
	}
	// The line says the page is gone and since when it was last seen gone,
	// so it is checked again a window later.
	o.res.State, o.res.Modified = list.Archived, now
	o.gone = en.State != list.Archived // news, once the loop takes it
	if o.gone {
		o.count.Archived++ // a page this run found gone, not one found gone again
	}
	e.archive(en, now)
}

// failed applies any other failure to the outcome o. The copy is kept
// untouched. A line without a copy records the visit, so it is tried again
// a window later by every spider, not at every pass (a line with a copy
// keeps the copy's time; every spider waits for the record's retry time).
func (e *Engine) failed(o *outcome, err error, now time.Time) {
	en := o.job.en
	*o.rec = history.Failed(*o.rec, err, now)
	o.res.State = failedState(en)
	if en.File == "" {
		o.res.Modified = now
	}
	e.polite.retry.hold(en.URL, o.rec.RetryAt)
	o.count.Errors++
	e.obs.failed(err)
	attrs := []any{"transient", fetch.Transient(err), "err", err}
	if hint := limitHint(err); hint != "" {
		o.rec.Reason += "; " + hint
		attrs = append(attrs, "hint", hint)
	}
	e.obs.warns.note(slog.LevelWarn, "fetch failed: "+errorKind(err), en.URL, attrs...)
}

// store makes the copy of a fetched page that the group commit writes into
// the mirror before the next pass, and extracts its links. A body
// identical to the last one (same checksum) with its copy in place is not
// written again (no copy): the copy's time advances, and the links held
// back last time are offered again (held.go).
func (e *Engine) store(o *outcome, resp *fetch.Response, now time.Time) {
	en, rec := o.job.en, o.rec
	// A redirect's target is a page of its own; the redirecting URL keeps a
	// copy too so links to it work in the mirror.
	for _, u := range append(resp.Redirects, resp.URL) {
		if u != en.URL && e.scope.has(u) {
			o.adds = append(o.adds, list.Add{URL: u, Level: en.Level})
		}
	}
	if e.lease.voided(o.epoch, now) {
		// The claim may have been taken back and the page fetched again by
		// another spider since; this copy may be older. Hand the line back.
		e.warnVoided(en.URL)
		o.rec, o.adds = nil, nil
		return
	}
	to := e.forwardFile(en, resp)
	forwards := to != ""
	sum := checksum(resp.Body)
	file, err := e.cfg.Layout.Path(en.URL, resp.MediaType)
	// The copy is of the same kind, and forwards to the same page if any.
	kept := forwards == o.job.rec.Forwards && (!forwards || resp.URL == o.job.rec.RedirectTo)
	if err == nil && kept && e.unchanged(en, o.job.rec, file, sum) {
		e.keep(o, resp, file, sum, now)
		return
	}
	var body []byte
	var links []extract.Link
	var linksErr error
	if err == nil {
		body, links, linksErr, err = e.transform(file, resp)
	}
	if err != nil {
		e.notStored(o, err, now)
		return
	}
	// Each link was decided as the page was rewritten (linkFile); what is
	// taken from it, compared and counted asks that decision again.
	judged := e.judgedLinks(links, e.scope.has(en.URL))
	// A page whose body changed only in its links' cache busters or
	// session ids (trap.StripSessions) has not changed: its checksum
	// leaves them out.
	if parts := volatileParts(links, judged); len(parts) > 0 {
		if sum = checksum(without(resp.Body, parts)); kept && e.unchanged(en, o.job.rec, file, sum) {
			e.keep(o, resp, file, sum, now)
			return
		}
	}
	if forwards {
		body = rewrite.Forward(rewrite.Rel(file, to))
	}
	// Committed before the pass that records it (commit.go); the mirror's
	// index hears of the change once it is on disk.
	o.copy = &pageCopy{file: file, body: body, ev: e.change(en, file, body, now), leads: e.leads(en.URL, file, body)}
	*rec = history.FetchedOK(*rec, resp, sum, true, now)
	rec.Forwards = forwards
	hub := e.cfg.HubLevel < 0 || en.Level <= e.cfg.HubLevel
	var pages []string // for the model's prior at a first visit, and for a hub's announcements
	if isHTML(resp.MediaType) {
		all := pageLinks(links, judged)
		e.guessLinkers(o, e.linkers.Parsed(en.URL, en.Level, all), now)
		if hub || o.job.rec.LastOK.IsZero() {
			pages = all
		}
	}
	e.revisit(o, rec, sum != o.job.rec.Checksum, pages, now)
	e.polite.retry.ok(en.URL)
	o.res.State, o.res.File, o.res.Modified = list.Downloaded, file, now
	o.count.Fetched++
	o.count.Bytes += int64(len(resp.Body))
	e.log.Debug("fetched", "url", en.URL, "status", resp.Status, "bytes", len(resp.Body), "file", file)
	if linksErr != nil {
		e.obs.warns.note(slog.LevelWarn, "links not extracted", en.URL, "err", linksErr)
	}
	if isHTML(resp.MediaType) {
		e.follow.traps.read(en.URL, resp.Body, judged) // before its links are taken
	}
	e.takeLinks(o, links, judged)
	if isHTML(resp.MediaType) && hub {
		e.announce(o, rec, pages, now)
	}
}

// forwardFile returns the file of the page the line en's URL redirected to
// (resp) if the line's copy is to forward there, "" if the copy is the
// body itself: a URL that redirects to a page in scope, a line of its own
// which keeps its copy current, gets a page that forwards there
// (meta.Record.Forwards); a redirect to anything else (an image a page
// shows) keeps a copy.
func (e *Engine) forwardFile(en list.Entry, resp *fetch.Response) string {
	if len(resp.Redirects) == 0 || resp.URL == en.URL || !isHTML(resp.MediaType) || !e.scope.has(resp.URL) {
		return ""
	}
	to, err := e.cfg.Layout.Path(resp.URL, resp.MediaType)
	if err != nil {
		return ""
	}
	return to
}

// notStored records a fetch of o's line whose copy could not be made
// (err): the line fails, and its old copy, if any, stays.
func (e *Engine) notStored(o *outcome, err error, now time.Time) {
	*o.rec = history.Failed(*o.rec, err, now)
	o.res.State = failedState(o.job.en)
	e.polite.retry.hold(o.job.en.URL, o.rec.RetryAt)
	o.count.Errors++
	e.obs.warns.note(slog.LevelError, "page not stored", o.job.en.URL, "err", err)
}

// keep records a fetch of o's line whose copy, file, is current (the
// body's checksum is sum, as last time).
func (e *Engine) keep(o *outcome, resp *fetch.Response, file, sum string, now time.Time) {
	*o.rec = history.FetchedOK(*o.rec, resp, sum, false, now)
	e.current(o, file, now)
}

// current records a visit of o's line that found its copy, file, current
// (o.rec says how: a 304, a redirect to the same page, the same body):
// its time advances, the file stays, its links count as unchanged for
// listings (they are as before), and the links held back last time are
// offered again (held.go).
func (e *Engine) current(o *outcome, file string, now time.Time) {
	e.kept(o, file, now)
	o.count.Unchanged++
}

// kept is current without the count: the line's copy, file, stays.
func (e *Engine) kept(o *outcome, file string, now time.Time) {
	e.revisit(o, o.rec, false, nil, now)
	listed(o.rec, o.job.en.Level, false)
	e.retakeHeld(o)
	e.polite.retry.ok(o.job.en.URL)
	o.res.State, o.res.File, o.res.Modified = list.Downloaded, file, now
}

// volatileParts returns what the links' URLs lose as the crawl takes them
// (judged: the links' decisions): their cache busters and session ids.
func volatileParts(links []extract.Link, judged []judgedLink) []string {
	var parts []string
	for i, l := range links {
		if judged[i].url != l.URL {
			for _, p := range trap.Volatile(l.URL) {
				if !slices.Contains(parts, p) { // a session id is in every link
					parts = append(parts, p)
				}
			}
		}
	}
	return parts
}

// without returns body without any of parts.
func without(body []byte, parts []string) []byte {
	for _, p := range parts {
		body = bytes.ReplaceAll(body, []byte(p), nil)
	}
	return body
}

func checksum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

func hostOf(u string) string { return urlkey.Host(u) }
