package hostile

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The fixture itself: each case misbehaves as documented.
func TestSite(t *testing.T) {
	s := New(Options{BombSize: 3<<20 + 5, BigSize: 1000, CrawlDelay: 1500 * time.Millisecond})
	srv := httptest.NewServer(s)
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip") // take the bomb as sent
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if _, body := get("/robots.txt"); body != "User-agent: *\nDisallow: /private/\nCrawl-delay: 1.5\n" {
		t.Errorf("robots.txt %q", body)
	}
	resp, body := get("/gzip-bomb")
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("bomb: %v, encoding %q", err, resp.Header.Get("Content-Encoding"))
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil || n != 3<<20+5 || len(body) > 64<<10 {
		t.Errorf("bomb: %d bytes sent decode to %d (%v), want 3 MiB + 5 from under 64 KiB", len(body), n, err)
	}
	if _, body := get("/big"); len(body) != 1000 {
		t.Errorf("/big: %d bytes", len(body))
	}
	for _, tt := range []struct {
		path, loc string
		status    int
	}{
		{"/loop/a", "/loop/b", 302}, {"/loop/b", "/loop/a", 302}, {"/chain/0", "/chain/1", 301},
		{"/chain/29", "/chain/30", 301}, {"/chain/30", "", 200}, {"/410", "", 410}, {"/nothing", "", 404},
		{"/503-then-200", "", 503}, {"/503-then-200", "", 200}, {"/404-then-200", "", 404}, {"/404-then-200", "", 200},
		{"/429", "", 429}, {"/calendar/2026-12-31", "", 200},
	} {
		resp, _ := get(tt.path)
		if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.loc {
			t.Errorf("%s: %d %q, want %d %q", tt.path, resp.StatusCode, resp.Header.Get("Location"), tt.status, tt.loc)
		}
	}
	if _, body := get("/calendar/2026-12-31"); !strings.Contains(body, `href="2027-01-01"`) || !strings.Contains(body, `href="2026-12-30"`) {
		t.Errorf("calendar page %q", body)
	}
	// /etag: 304 to its own ETag, a new version after Change.
	cond := func(etag string) (int, string) {
		req, _ := http.NewRequest("GET", srv.URL+"/etag", nil)
		req.Header.Set("If-None-Match", etag)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("ETag")
	}
	if code, etag := cond(`"v1"`); code != 304 || etag != `"v1"` {
		t.Errorf("/etag with its ETag: %d %s, want 304", code, etag)
	}
	s.Change("/etag")
	if code, etag := cond(`"v1"`); code != 200 || etag != `"v2"` {
		t.Errorf("/etag after Change: %d %s, want 200 with \"v2\"", code, etag)
	}
	s.SetHealthy(true)
	if resp, body := get("/410"); resp.StatusCode != 200 || !strings.Contains(body, "good copy of /410") {
		t.Errorf("healthy /410: %d %q", resp.StatusCode, body)
	}
	reqs := s.Requests()
	if len(reqs) != 20 || reqs[0].Path != "/robots.txt" || reqs[1].Status != 200 || reqs[len(reqs)-1].Path != "/410" {
		t.Errorf("log of %d requests: first %+v, last %+v", len(reqs), reqs[0], reqs[len(reqs)-1])
	}
	for i := 1; i < len(reqs); i++ {
		if reqs[i].Time.Before(reqs[i-1].Time) {
			t.Errorf("log out of order at %d", i)
		}
	}
	if s.Hits("/503-then-200") != 2 || s.HitsPrefix("/chain/") != 3 {
		t.Errorf("hits: %d, %d", s.Hits("/503-then-200"), s.HitsPrefix("/chain/"))
	}
}
