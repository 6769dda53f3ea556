package history

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// An answer in a sequence: its status at a time after the first.
type answer struct {
	at     time.Duration
	status int // 200, 304, 404, 410, 500, or 0 for a connection reset
}

// apply records one answer in rec as the engine does, and says whether it
// archives the page.
func (a answer) apply(rec meta.Record, rule GoneRule, t time.Time) (meta.Record, bool) {
	switch a.status {
	case 200:
		resp := &fetch.Response{URL: "u", Status: 200, Header: http.Header{}, Body: []byte("b")}
		return FetchedOK(rec, resp, "s", false, t), false
	case 304:
		return NotModified(rec, t), false
	case 404, 410:
		return Gone(rec, &fetch.HTTPError{URL: "u", StatusCode: a.status}, rule, t)
	case 0:
		return Failed(rec, errors.New("connection reset"), t), false
	}
	return Failed(rec, &fetch.HTTPError{URL: "u", StatusCode: a.status}, t), false
}

// A 404 archives only after rule.Count of them whose first and last are
// rule.Span apart with no success between; a 410 at once; other failures
// neither confirm nor reset the count. The last answer decides.
func TestGoneNeedsConfirmation(t *testing.T) {
	hour := GoneRule{Count: 3, Span: time.Hour}
	tests := []struct {
		name     string
		rule     GoneRule
		answers  []answer
		archived bool
		notFound int           // 404s counted after the last answer
		retry    time.Duration // after the last answer's time; 0: none
	}{
		{"first 404", hour, []answer{{0, 404}}, false, 1, 30 * time.Minute},
		{"a burst of 404s in 45s", hour, []answer{{0, 404}, {15 * time.Second, 404}, {45 * time.Second, 404}}, false, 3, time.Hour - 45*time.Second},
		{"three 404s over an hour", hour, []answer{{0, 404}, {30 * time.Minute, 404}, {time.Hour, 404}}, true, 3, 0},
		{"two 404s over an hour", hour, []answer{{0, 404}, {time.Hour, 404}}, false, 2, time.Minute},
		{"late second 404 shares what is left", hour, []answer{{0, 404}, {50 * time.Minute, 404}}, false, 2, 10 * time.Minute},
		{"a 200 between starts afresh", hour, []answer{{0, 404}, {30 * time.Minute, 200}, {40 * time.Minute, 404}, {time.Hour, 404}}, false, 2, 40 * time.Minute},
		{"a 304 between starts afresh", hour, []answer{{0, 404}, {30 * time.Minute, 304}, {31 * time.Minute, 404}, {time.Hour, 404}, {2 * time.Hour, 404}}, true, 3, 0},
		{"a 500 between neither confirms nor resets", hour, []answer{{0, 404}, {30 * time.Minute, 500}, {40 * time.Minute, 404}, {time.Hour, 404}}, true, 3, 0},
		{"a reset between neither confirms nor resets", hour, []answer{{0, 404}, {10 * time.Minute, 0}, {20 * time.Minute, 0}, {time.Hour, 404}}, false, 2, time.Minute},
		{"410 at once", hour, []answer{{0, 410}}, true, 1, 0},
		{"410 after a 404", hour, []answer{{0, 404}, {time.Minute, 410}}, true, 2, 0},
		{"count 1 archives at once", GoneRule{Count: 1, Span: time.Hour}, []answer{{0, 404}}, true, 1, 0},
		{"count 2 over a day", GoneRule{Count: 2, Span: 24 * time.Hour}, []answer{{0, 404}}, false, 1, 24 * time.Hour},
		{"short span, floor a Count-th of it", GoneRule{Count: 3, Span: 30 * time.Second}, []answer{{0, 404}, {30 * time.Second, 404}}, false, 2, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec meta.Record
			var arch bool
			var last time.Time
			for _, a := range tt.answers {
				last = now.Add(a.at)
				rec, arch = a.apply(rec, tt.rule, last)
			}
			if arch != tt.archived {
				t.Fatalf("archived = %v, want %v (reason %q)", arch, tt.archived, rec.Reason)
			}
			if rec.NotFound != tt.notFound || rec.Reason == "" {
				t.Errorf("404s counted %d, want %d; record %+v", rec.NotFound, tt.notFound, rec)
			}
			want := time.Time{}
			if tt.retry > 0 {
				want = last.Add(tt.retry)
			}
			if !rec.RetryAt.Equal(want) {
				t.Errorf("retry at %v, want %v (reason %q)", rec.RetryAt, want, rec.Reason)
			}
		})
	}
}

// Retries at the times Gone asks for archive a page that stays 404 exactly
// when the span is covered, with Count requests; never sooner.
func TestGoneRetriesCoverTheSpan(t *testing.T) {
	for _, rule := range []GoneRule{{3, time.Hour}, {2, time.Hour}, {5, 24 * time.Hour}, {3, 10 * time.Second}} {
		var rec meta.Record
		at := now
		for i := 1; ; i++ {
			var arch bool
			rec, arch = Gone(rec, &fetch.HTTPError{URL: "u", StatusCode: 404}, rule, at)
			if arch {
				if i != rule.Count || at.Sub(now) != rule.Span {
					t.Errorf("%+v: archived on request %d at +%v, want %d at +%v", rule, i, at.Sub(now), rule.Count, rule.Span)
				}
				break
			}
			if i > rule.Count {
				t.Fatalf("%+v: not archived after %d requests over %v", rule, i, at.Sub(now))
			}
			at = rec.RetryAt
		}
	}
}

func TestFailedBacksOff(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "1800")
	date := http.Header{}
	date.Set("Retry-After", now.Add(45*time.Minute).Format(http.TimeFormat))
	bad := http.Header{}
	bad.Set("Retry-After", "12abc")
	long := http.Header{}
	long.Set("Retry-After", "999999")
	tests := []struct {
		name  string
		fails int
		err   error
		wait  time.Duration
	}{
		{"first failure", 0, errors.New("reset"), time.Minute},
		{"third failure", 2, errors.New("reset"), 4 * time.Minute},
		{"many failures cap at 6h", 40, errors.New("reset"), 6 * time.Hour},
		{"503 Retry-After seconds", 0, &fetch.HTTPError{StatusCode: 503, Header: h}, 30 * time.Minute},
		{"429 Retry-After date", 0, &fetch.HTTPError{StatusCode: 429, Header: date}, 45 * time.Minute},
		{"malformed Retry-After ignored", 0, &fetch.HTTPError{StatusCode: 503, Header: bad}, time.Minute},
		{"Retry-After capped", 0, &fetch.HTTPError{StatusCode: 503, Header: long}, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := Failed(meta.Record{Fails: tt.fails, NotFound: 1}, tt.err, now)
			if got := rec.RetryAt.Sub(now); got != tt.wait {
				t.Errorf("wait %v, want %v", got, tt.wait)
			}
			if rec.NotFound != 1 || rec.Fails != tt.fails+1 || rec.Error == "" {
				t.Errorf("record %+v", rec)
			}
		})
	}
}

func TestFetchedOK(t *testing.T) {
	hdr := http.Header{}
	hdr.Set("ETag", `"v2"`)
	hdr.Set("Last-Modified", "Sat, 21 Nov 2026 11:00:00 GMT")
	resp := &fetch.Response{URL: "http://h/b", Status: 200, MediaType: "text/html", Header: hdr, Body: []byte("body")}
	prior := meta.Record{URL: "http://h/a", Fails: 3, NotFound: 1, Unchanged: 4, RetryAt: now, Error: "x"}
	tests := []struct {
		name           string
		changed        bool
		unchanged      int
		lastChanged    time.Time
		reasonPrefix   string
		redirectTo     string
		etag           string
		headerOversize bool
	}{
		{"changed", true, 0, now, "", "http://h/b", `"v2"`, false},
		{"same body", false, 5, time.Time{}, "unchanged", "http://h/b", `"v2"`, false},
		{"oversize validator dropped", true, 0, now, "", "http://h/b", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := *resp
			r.Header = hdr.Clone()
			if tt.headerOversize {
				r.Header.Set("ETag", strings.Repeat("x", 600))
			}
			rec := FetchedOK(prior, &r, "sum", tt.changed, now)
			if rec.Fails != 0 || rec.NotFound != 0 || !rec.RetryAt.IsZero() || rec.Error != "" {
				t.Errorf("failures not cleared: %+v", rec)
			}
			if rec.Unchanged != tt.unchanged || !rec.LastChanged.Equal(tt.lastChanged) || !strings.HasPrefix(rec.Reason, tt.reasonPrefix) {
				t.Errorf("unchanged %d, last changed %v, reason %q; want %d, %v, %q…", rec.Unchanged, rec.LastChanged, rec.Reason, tt.unchanged, tt.lastChanged, tt.reasonPrefix)
			}
			if rec.RedirectTo != tt.redirectTo || rec.ETag != tt.etag || rec.Checksum != "sum" || rec.Size != 4 || !rec.LastOK.Equal(now) {
				t.Errorf("record %+v", rec)
			}
		})
	}
}

func TestNotModifiedAndAttempted(t *testing.T) {
	rec := Attempted(meta.Record{Attempts: 2, Fails: 1, NotFound: 1, RetryAt: now}, "http://h/", now)
	if rec.Attempts != 3 || rec.URL != "http://h/" || !rec.LastAttempt.Equal(now) {
		t.Errorf("attempted: %+v", rec)
	}
	rec = NotModified(rec, now)
	if rec.Status != 304 || rec.Fails != 0 || rec.NotFound != 0 || !rec.RetryAt.IsZero() || rec.Unchanged != 1 || !rec.LastOK.Equal(now) {
		t.Errorf("not modified: %+v", rec)
	}
	fw := meta.Record{RedirectTo: "http://h/new", Forwards: true, Fails: 1, Checksum: "c"}
	if r := Redirected(fw, 308, now); r.Status != 308 || r.Unchanged != 1 || r.Fails != 0 || !r.LastOK.Equal(now) ||
		r.RedirectTo != fw.RedirectTo || !r.Forwards || r.Checksum != "c" || !strings.Contains(r.Reason, "same page") {
		t.Errorf("redirected: %+v", r)
	}
}

func TestConditional(t *testing.T) {
	tests := []struct {
		rec       meta.Record
		none, lm  string
		wantEmpty bool
	}{
		{meta.Record{}, "", "", true},
		{meta.Record{ETag: `"e"`}, `"e"`, "", false},
		{meta.Record{LastModified: "d"}, "", "d", false},
		{meta.Record{ETag: `"e"`, LastModified: "d"}, `"e"`, "d", false},
	}
	for _, tt := range tests {
		h := Conditional(tt.rec)
		if (h == nil) != tt.wantEmpty || h.Get("If-None-Match") != tt.none || h.Get("If-Modified-Since") != tt.lm {
			t.Errorf("Conditional(%+v) = %v", tt.rec, h)
		}
	}
}
