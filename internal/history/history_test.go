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

func TestGoneNeedsConfirmation(t *testing.T) {
	e404 := &fetch.HTTPError{URL: "u", StatusCode: 404, Status: "404 Not Found"}
	e410 := &fetch.HTTPError{URL: "u", StatusCode: 410, Status: "410 Gone"}
	tests := []struct {
		name     string
		prior    int // 404s in a row before
		err      error
		after    int
		archived bool
	}{
		{"first 404 of 2", 0, e404, 2, false},
		{"second 404 of 2", 1, e404, 2, true},
		{"first 404 of 1", 0, e404, 1, true},
		{"410 at once", 0, e410, 3, true},
		{"second 404 of 3", 1, e404, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, arch := Gone(meta.Record{NotFound: tt.prior}, tt.err, tt.after, time.Minute, now)
			if arch != tt.archived {
				t.Fatalf("archived = %v, want %v (reason %q)", arch, tt.archived, rec.Reason)
			}
			if !arch && !rec.RetryAt.Equal(now.Add(time.Minute)) {
				t.Errorf("unconfirmed 404: retry at %v, want a minute later", rec.RetryAt)
			}
			if arch && !rec.RetryAt.IsZero() {
				t.Errorf("archived: retry at %v, want none", rec.RetryAt)
			}
			if rec.NotFound != tt.prior+1 || rec.Reason == "" {
				t.Errorf("record %+v", rec)
			}
		})
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
			if rec.NotFound != 0 || rec.Fails != tt.fails+1 || rec.Error == "" {
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
