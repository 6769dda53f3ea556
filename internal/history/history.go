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
	rec.Status, rec.Error, rec.Fails, rec.RetryAt = resp.Status, "", 0, time.Time{}
	rec.NotFound, rec.NotFoundSince = 0, time.Time{}
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
	rec.Status, rec.Error, rec.Fails, rec.RetryAt = http.StatusNotModified, "", 0, time.Time{}
	rec.NotFound, rec.NotFoundSince = 0, time.Time{}
	rec.LastOK = now.UTC()
	rec.Unchanged++
	rec.Reason = "unchanged: 304 Not Modified"
	return rec
}

// Redirected is NotModified for a URL whose copy forwards to the page it
// redirected to (meta.Record.Forwards), which answered status redirecting
// there again: the copy is current.
func Redirected(rec meta.Record, status int, now time.Time) meta.Record {
	rec = NotModified(rec, now)
	rec.Status, rec.Reason = status, "unchanged: redirects to the same page as last time"
	return rec
}

// GoneRule says how much evidence archives a page that answers 404: Count
// answers whose first and last are at least Span apart, with no success
// between. A single answer spans nothing: with Count 1 the first 404
// archives at once. A 410 says the removal is deliberate and always
// archives at once.
type GoneRule struct {
	Count int
	Span  time.Duration
}

// Gone records a 404 or 410 and says whether the page is now archived
// (GoneRule). Until then the next attempt is spaced so that the answers
// still needed cover what is left of the span evenly: a page answering 404
// for a minute (a deploy, a flapping backend) is asked again well after.
// A success in between starts the count afresh (FetchedOK, NotModified);
// another failure neither confirms nor resets it (Failed).
func Gone(rec meta.Record, err error, rule GoneRule, now time.Time) (meta.Record, bool) {
	status := fetch.Status(err)
	rec.Status, rec.Error = status, err.Error()
	if rec.NotFound == 0 || rec.NotFoundSince.IsZero() || rec.NotFoundSince.After(now) {
		rec.NotFound, rec.NotFoundSince = 0, now.UTC()
	}
	rec.NotFound++
	rec.Fails++
	over := now.Sub(rec.NotFoundSince)
	if status == http.StatusGone || rec.NotFound >= rule.Count && (over >= rule.Span || rule.Count <= 1) {
		rec.RetryAt = time.Time{}
		rec.Reason = fmt.Sprintf("archived: the site answered %d", status)
		if status == http.StatusNotFound {
			rec.Reason += fmt.Sprintf(" %d times over %s", rec.NotFound, over.Round(time.Second))
		}
		return rec, true
	}
	rec.RetryAt = nextGoneCheck(rec, rule, now).UTC()
	rec.Reason = fmt.Sprintf("404 answers: %d over %s, %d over %s archive; next attempt after %s",
		rec.NotFound, over.Round(time.Second), rule.Count, rule.Span, rec.RetryAt.Format(time.RFC3339))
	return rec, false
}

// nextGoneCheck is when a page that answered 404 without enough evidence
// to archive it is asked again: what is left of the span shared evenly
// among the answers still needed (at least one: the count may be reached
// before the span is), and never sooner than a minute (or a Count-th of a
// shorter span), so a span already over is not met by requests in a burst.
func nextGoneCheck(rec meta.Record, rule GoneRule, now time.Time) time.Time {
	needed := max(rule.Count-rec.NotFound, 1)
	left := rec.NotFoundSince.Add(rule.Span).Sub(now)
	floor := min(time.Minute, rule.Span/time.Duration(max(rule.Count, 1)))
	return now.Add(max(left/time.Duration(needed), floor))
}

// Failed records any other failure and when to try again: a minute after
// the first, doubling up to 6 hours, and never before a Retry-After (up to
// a day). It leaves the count of 404 answers alone: a timeout or a 500
// says nothing about whether the page still exists, so it neither adds to
// the evidence that it is gone nor takes from it.
func Failed(rec meta.Record, err error, now time.Time) meta.Record {
	rec.Status, rec.Error = fetch.Status(err), err.Error()
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
