// Package history decides, from a URL's fetch history and the answer to
// one request, what the history says next: which validators a conditional
// GET may send, whether a 404 is confirmed, and when a failing URL may be
// tried again. It is pure: a function of the record, the answer and the
// clock. internal/meta stores the records; internal/crawl applies them.
package history

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/hostgate"
	"github.com/spider-mirror/spider/internal/meta"
)

// Attempted starts the record of a request for url made at now.
func Attempted(rec meta.Record, url string, now time.Time) meta.Record {
	rec.URL = url
	rec.Attempts++
	rec.LastAttempt = now.UTC()
	return rec
}

// FetchedOK records a 2xx answer with the body's checksum sum; changed
// says the body differed from the last one.
func FetchedOK(rec meta.Record, resp *fetch.Response, sum string, changed bool, now time.Time) meta.Record {
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

// NotModified records a 304.
func NotModified(rec meta.Record, now time.Time) meta.Record {
	rec.Status, rec.Error, rec.Fails, rec.NotFound, rec.RetryAt = http.StatusNotModified, "", 0, 0, time.Time{}
	rec.LastOK = now.UTC()
	rec.Unchanged++
	rec.Reason = "unchanged: 304 Not Modified"
	return rec
}

// Gone records a 404 or 410 and says whether the page is now archived: a
// 410 at once, a 404 once it has answered 404 on after consecutive
// attempts. Until then the next attempt waits confirm.
func Gone(rec meta.Record, err error, after int, confirm time.Duration, now time.Time) (meta.Record, bool) {
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

// Failed records any other failure and when to try again: a minute after
// the first, doubling up to 6 hours, and never before a Retry-After (up to
// a day).
func Failed(rec meta.Record, err error, now time.Time) meta.Record {
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

// Conditional returns the validators a refresh may send for a copy whose
// history is rec: none without a validator.
func Conditional(rec meta.Record) http.Header {
	if rec.ETag == "" && rec.LastModified == "" {
		return nil
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

// RetryAfter reads a Retry-After header (seconds or an HTTP date) as a wait
// from now, capped at hostgate.MaxSlowDown; 0 if there is none or it
// cannot be read.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(hostgate.MaxSlowDown/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), hostgate.MaxSlowDown)
	}
	return 0
}

func statusOf(err error) int {
	var he *fetch.HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	return 0
}

// retryAfterOf is the Retry-After of an HTTP error; 0 if none.
func retryAfterOf(err error, now time.Time) time.Duration {
	var he *fetch.HTTPError
	if !errors.As(err, &he) || he.Header == nil {
		return 0
	}
	return RetryAfter(he.Header, now)
}

// clipHeader keeps a validator only if it is short enough to send back.
func clipHeader(v string) string {
	if len(v) > 512 {
		return ""
	}
	return v
}
