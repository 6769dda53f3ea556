package crawl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// The history of a URL (internal/meta) decides three things the list line
// cannot: which validators a conditional GET sends, whether a 404 is
// confirmed, and when a failing URL may be tried again. This file is that
// policy; meta only stores it.

// conditional returns the validators to send for a line: only when the
// mirror holds the line's copy as fetched, so a 304 always has a copy to
// keep (an archived copy carries a banner: a page that comes back is
// fetched whole and written afresh without it).
func (e *Engine) conditional(en list.Entry, rec meta.Record) http.Header {
	if en.File == "" || en.State == list.Archived || rec.ETag == "" && rec.LastModified == "" {
		return nil
	}
	if _, err := e.mirror.Stat(en.File); err != nil {
		return nil // the copy is missing: fetch it whole
	}
	h := http.Header{}
	if rec.ETag != "" {
		h.Set("If-None-Match", rec.ETag)
	}
	if rec.LastModified != "" {
		h.Set("If-Modified-Since", rec.LastModified)
	}
	return h
}

// unchanged reports whether a body with checksum sum, to be saved at file,
// is the copy the line already has: same checksum as last time, same file,
// the file in place, and not an archived copy (which carries a banner).
func (e *Engine) unchanged(en list.Entry, rec meta.Record, file, sum string) bool {
	if sum != rec.Checksum || file != en.File || en.State == list.Archived {
		return false
	}
	_, err := e.mirror.Stat(file)
	return err == nil
}

func checksum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// attempted starts the record of a request made at now.
func attempted(rec meta.Record, url string, now time.Time) meta.Record {
	rec.URL = url
	rec.Attempts++
	rec.LastAttempt = now.UTC()
	return rec
}

// fetchedOK records a 2xx answer; changed says the body differed from the
// last one.
func fetchedOK(rec meta.Record, resp *fetch.Response, sum string, changed bool, now time.Time) meta.Record {
	rec.ETag = clipHeader(resp.Header.Get("ETag"))
	rec.LastModified = clipHeader(resp.Header.Get("Last-Modified"))
	rec.Checksum, rec.MediaType, rec.Size = sum, resp.MediaType, int64(len(resp.Body))
	rec.Status, rec.Error, rec.Fails, rec.NotFound, rec.RetryAt = resp.Status, "", 0, 0, time.Time{}
	rec.LastOK = now.UTC()
	rec.RedirectTo = ""
	if resp.URL != rec.URL {
		rec.RedirectTo = resp.URL
	}
	if changed {
		rec.Unchanged, rec.LastChanged, rec.Reason = 0, now.UTC(), ""
	} else {
		rec.Unchanged++
		rec.Reason = "unchanged: same body as before"
	}
	return rec
}

// notModified records a 304.
func notModified(rec meta.Record, now time.Time) meta.Record {
	rec.Status, rec.Error, rec.Fails, rec.NotFound, rec.RetryAt = http.StatusNotModified, "", 0, 0, time.Time{}
	rec.LastOK = now.UTC()
	rec.Unchanged++
	rec.Reason = "unchanged: 304 Not Modified"
	return rec
}

// gone records a 404 or 410 and says whether the page is now archived: a
// 410 at once, a 404 once it has answered 404 on after consecutive
// attempts. Until then the next attempt waits confirm.
func gone(rec meta.Record, err error, after int, confirm time.Duration, now time.Time) (meta.Record, bool) {
	status := statusOf(err)
	rec.Status, rec.Error = status, err.Error()
	rec.NotFound++
	rec.Fails++
	if status == http.StatusGone || rec.NotFound >= after {
		rec.RetryAt = time.Time{}
		rec.Reason = fmt.Sprintf("archived: the site answered %d", status)
		if status == http.StatusNotFound {
			rec.Reason += fmt.Sprintf(" on %d attempts in a row", rec.NotFound)
		}
		return rec, true
	}
	rec.RetryAt = now.Add(confirm).UTC()
	rec.Reason = fmt.Sprintf("404 on %d of %d attempts needed to archive; next attempt after %s",
		rec.NotFound, after, rec.RetryAt.Format(time.RFC3339))
	return rec, false
}

// failed records any other failure and when to try again: a minute after
// the first, doubling up to 6 hours, and never before a Retry-After.
func failed(rec meta.Record, err error, now time.Time) meta.Record {
	rec.Status, rec.Error = statusOf(err), err.Error()
	rec.NotFound = 0
	rec.Fails++
	wait := min(time.Minute<<min(rec.Fails-1, 9), 6*time.Hour)
	if ra := retryAfterOf(err, now); ra > wait {
		wait = min(ra, 24*time.Hour)
	}
	rec.RetryAt = now.Add(wait).UTC()
	kind := "permanent error"
	if fetch.Transient(err) {
		kind = "transient error"
	}
	rec.Reason = fmt.Sprintf("%s, %d in a row; next attempt after %s", kind, rec.Fails, rec.RetryAt.Format(time.RFC3339))
	return rec
}

func statusOf(err error) int {
	var he *fetch.HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	return 0
}

// retryAfterOf is the Retry-After of an HTTP error (polite.go reads it;
// capped at hostgate.MaxSlowDown); 0 if none.
func retryAfterOf(err error, now time.Time) time.Duration {
	var he *fetch.HTTPError
	if !errors.As(err, &he) || he.Header == nil {
		return 0
	}
	return retryAfter(he.Header, now)
}

// clipHeader keeps a validator only if it is short enough to send back.
func clipHeader(v string) string {
	if len(v) > 512 {
		return ""
	}
	return v
}

// runPass hands the history of the results the pass records to the
// historian, then runs the pass. The history is stored beside the loop
// (its file's fsync would otherwise lengthen every pass), so it may reach
// the disk after the pass: a crash in between loses records, which costs
// nothing but an unconditional GET, a restarted 404 count or a forgotten
// retry time (internal/meta). A copy is never at stake: the list alone
// says which copies the mirror holds.
//
// The last pass of a run (last) also stores everything the historian
// holds, beside the pass, and returns once both are done: the end of a run
// waits for the longer of the two instead of both.
func (e *Engine) runPass(ctx context.Context, c *list.Cycle, last func()) error {
	e.hist.add(e.pendingHistory, e.workersIdle())
	e.pendingHistory = nil
	if last == nil {
		return e.list.Run(ctx, c)
	}
	stored := make(chan struct{})
	go func() {
		defer close(stored)
		last()
	}()
	defer func() { <-stored }()
	return e.list.Run(ctx, c)
}

// workersIdle reports whether the workers have nothing to fetch and the
// last pass gave them nothing: the end of a crawl, or a pause in it. A
// refresh, whose passes wait for every claim to come back, has nothing
// queued at each pass, but is idle only once a pass sends nothing.
func (e *Engine) workersIdle() bool { return e.queued.Load() == 0 && e.sent == 0 }

// historian stores history records beside the loop, in one transaction
// per batch of whatever accumulated since the last one, at most every
// historyEvery unless historyBatch records wait: a transaction rewrites
// every page of LIST.meta its records touch, and records of one batch
// share pages (a first mirror stored 14,000 records in 35 transactions,
// 4% of its CPU, before this).
type historian struct {
	mu    sync.Mutex
	queue []meta.Record
	last  time.Time // when the last batch was taken
	kick  chan struct{}
}

const (
	historyEvery = time.Second
	historyIdle  = historyEvery / 8
	historyBatch = 4096
)

// add queues records, and wakes the historian if a batch is due. Each
// pass calls it, with records or without. idle says the workers have
// nothing left to fetch: the end of a crawl, or a pause in it. A batch is
// then due sooner (historyIdle), so the records of a run's last second
// are stored while its last fetches are committed, not after its last
// pass.
func (h *historian) add(recs []meta.Record, idle bool) {
	h.mu.Lock()
	h.queue = append(h.queue, recs...)
	since := time.Since(h.last)
	due := len(h.queue) > 0 && (len(h.queue) >= historyBatch || since >= historyEvery || idle && since >= historyIdle)
	h.mu.Unlock()
	if !due {
		return
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// storeHistory runs the historian until stop is called; stop stores what
// is left before it returns.
func (e *Engine) storeHistory() (stop func()) {
	h := &e.hist
	h.kick = make(chan struct{}, 1)
	flush := func() {
		h.mu.Lock()
		recs := h.queue
		h.queue, h.last = nil, time.Now()
		h.mu.Unlock()
		if len(recs) == 0 {
			return
		}
		if err := e.cfg.Meta.Put(recs); err != nil {
			// History is a cache (see internal/meta): the spider goes on
			// without it rather than stall.
			e.log.Warn("fetch history not stored; those URLs are fetched unconditionally next time", "records", len(recs), "err", err)
		}
	}
	stopFlushes := beside(h.kick, flush)
	return func() { stopFlushes(); flush() }
}

// records returns the history of the claimed lines the workers are to
// fetch, all but those fetched ahead (fetched): their fetch is over, and
// reading their records could wait for the historian's write. Without it
// the lines are fetched unconditionally, which is slower but correct.
func (e *Engine) records(claimed []list.Entry, fetched map[string]bool) map[string]meta.Record {
	var keys []string
	for _, en := range claimed {
		if !fetched[en.URL] {
			keys = append(keys, en.URL)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	recs, err := e.cfg.Meta.Get(keys)
	if err != nil {
		e.log.Warn("fetch history not read; fetching without it", "err", err)
	}
	return recs
}
