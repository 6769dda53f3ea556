package crawl

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/hostile"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// hostileEnv is a list and a mirror crawling an internal/hostile site.
type hostileEnv struct {
	site  *hostile.Site
	base  string
	list  *list.List
	mdir  string
	m     *mirror.Mirror
	clock time.Time
	fetch fetch.Options
	cfg   func(*Config) // adjusts each run's config
}

func newHostile(t *testing.T, o hostile.Options) *hostileEnv {
	t.Helper()
	site := hostile.New(o)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	l, m, mdir := openListMirror(t)
	return &hostileEnv{site: site, base: srv.URL, list: l, mdir: mdir, m: m,
		clock: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		fetch: fetch.Options{UserAgent: "spider/test", Timeout: 2 * time.Second, HeaderTimeout: time.Second, MaxBody: 1 << 20, MaxRedirects: 10}}
}

// run crawls from the given paths until idle, with a bound on its time.
func (v *hostileEnv) run(t *testing.T, paths ...string) Summary {
	t.Helper()
	var starts []string
	for _, p := range paths {
		starts = append(starts, v.base+p)
	}
	now := v.clock
	cfg := Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: starts, Concurrency: 2, Lease: time.Minute, UntilIdle: true,
		Now: func() time.Time { return now },
	}
	if v.cfg != nil {
		v.cfg(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := New(cfg, v.list, v.m, fetch.New(v.fetch)).Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the crawl did not end by itself within 60s")
	}
	return sum
}

func (v *hostileEnv) entries(t *testing.T) map[string]list.Entry {
	t.Helper()
	out := map[string]list.Entry{}
	if err := v.list.Scan(context.Background(), func(e *list.Entry) error { c := e.Clone(); out[c.URL] = c; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func (v *hostileEnv) line(t *testing.T, path string) list.Entry {
	t.Helper()
	e, ok := v.entries(t)[v.base+path]
	if !ok {
		t.Fatalf("no line for %s", path)
	}
	return e
}

func (v *hostileEnv) copyOf(t *testing.T, e list.Entry) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v.mdir, filepath.FromSlash(e.File)))
	if err != nil {
		t.Fatalf("copy of %s: %v", e.URL, err)
	}
	return b
}

// gaps checks that no two requests in reqs arrived less than d apart
// (less a millisecond for the clock).
func gaps(t *testing.T, reqs []hostile.Request, d time.Duration) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		if g := reqs[i].Time.Sub(reqs[i-1].Time); g < d-time.Millisecond {
			t.Errorf("%s and %s arrived %v apart, want ≥ %v", reqs[i-1].Path, reqs[i].Path, g, d)
		}
	}
}

// robots.txt: a Disallow'd page is never requested and is recorded
// disallowed; Crawl-delay spaces every request, robots.txt asked once.
func TestHostileRobots(t *testing.T) {
	v := newHostile(t, hostile.Options{CrawlDelay: 300 * time.Millisecond})
	v.run(t, "/private/secret", "/cp1251", "/koi8r", "/sjis")
	if e := v.line(t, "/private/secret"); e.State != list.Disallowed || e.File != "" {
		t.Errorf("forbidden page: %+v, want disallowed without a copy", e)
	}
	if n := v.site.Hits("/private/secret"); n != 0 {
		t.Errorf("forbidden page requested %d times", n)
	}
	if n := v.site.Hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
	reqs := v.site.Requests()
	if len(reqs) < 4 {
		t.Fatalf("%d requests, want robots.txt and 3 pages at least", len(reqs))
	}
	gaps(t, reqs, 300*time.Millisecond)
}

// An endless calendar, a spiral of repeated segments and ever longer URLs
// are cut by the link limits: a bounded number of requests.
func TestHostileTraps(t *testing.T) {
	v := newHostile(t, hostile.Options{})
	v.cfg = func(c *Config) { c.Scope.Limits = scope.Limits{MaxLevel: 5, MaxURLLen: 300} }
	v.run(t, "/calendar/2026-11-21", "/spiral/a/b/", "/long/x")
	// Calendar: levels 0..5 reach 5 days either side: 11 pages.
	if n := v.site.HitsPrefix("/calendar/"); n != 11 {
		t.Errorf("calendar: %d requests, want 11 (levels 0 to 5)", n)
	}
	// Spiral: /spiral/a/b/ and /spiral/a/b/a/b/; a third a/b is refused.
	if n := v.site.HitsPrefix("/spiral/"); n != 2 {
		t.Errorf("spiral: %d requests, want 2", n)
	}
	for u, e := range v.entries(t) {
		if len(u) > 300 {
			t.Errorf("a line for a %d-byte URL", len(u))
		}
		if e.Level > 5 {
			t.Errorf("a line at level %d: %s", e.Level, u)
		}
	}
	// Long: names x, xx, xxxx, ... up to the 300-byte URL limit.
	if n := v.site.HitsPrefix("/long/"); n < 5 || n > 9 {
		t.Errorf("long: %d requests, want the few under 300 bytes", n)
	}
}

// The per-host budget of links per pass holds back the links beyond it
// (held.go: taken at later passes and visits, not here).
func TestHostLinkBudget(t *testing.T) {
	defer func(n int) { maxHeldInRun = n }(maxHeldInRun)
	maxHeldInRun = 0
	v := newEnv(t)
	var b strings.Builder
	for i := range 10 {
		b.WriteString(`<a href="/p` + string(rune('0'+i)) + `">p</a>`)
	}
	v.site.set("/", 200, b.String())
	now := v.clock
	e := New(Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 1, Lease: time.Minute, UntilIdle: true, MaxNewPerHost: 3,
		Now: func() time.Time { return now },
	}, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	v.list.Scan(context.Background(), func(*list.Entry) error { n++; return nil })
	if n != 4 {
		t.Errorf("list has %d lines, want the start and 3 of its 10 links", n)
	}
}

// Failures that must leave a good copy alone: first mirror the healthy
// site, then let each case misbehave and check state, reason, requests
// and the copy.
func TestHostileFailuresKeepCopies(t *testing.T) {
	v := newHostile(t, hostile.Options{})
	v.fetch.Timeout, v.fetch.HeaderTimeout = time.Second, 500*time.Millisecond
	lo, pr := scope.Allowed([]string{hostOf(v.base + "/")}) // as cmd/spider wires it
	v.fetch.Refuse = func(a netip.Addr) bool { return scope.Refuse(a, lo, pr) }
	cases := []struct {
		path    string
		maxHits int    // requests to the case's paths in the failing run
		prefix  string // paths counted; "" = path
		reason  string // in the URL's fetch history (spider show), the log grouping failures by kind
	}{
		{"/loop/a", 2, "/loop/", "redirect loop"},
		{"/redirect-private", 1, "", "redirect to http://169.254.169.254/"}, // fetch.TestRefuse covers the dial-time refusal
		{"/chain/0", 11, "/chain/", "stopped after 10 redirects"},
		{"/gzip-bomb", 1, "", "body over limit"},
		{"/big", 1, "", "body over limit"},
		{"/big-declared", 1, "", "content-length 104857600 over limit"},
		{"/trickle", 1, "", "Client.Timeout"},
		{"/slow-headers", 1, "", "timeout awaiting response headers"},
		{"/503", 1, "", "503 Service Unavailable"},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, c.path)
	}
	v.site.SetHealthy(true)
	v.run(t, paths...)
	good := map[string][]byte{}
	before := map[string]int{}
	for _, c := range cases {
		e := v.line(t, c.path)
		if e.State != list.Downloaded {
			t.Fatalf("healthy %s: %+v, want downloaded", c.path, e)
		}
		good[c.path] = v.copyOf(t, e)
		before[c.path] = hits(v.site, c)
	}

	v.site.SetHealthy(false)
	v.clock = v.clock.Add(2 * time.Hour)
	var logBuf syncBuffer
	v.cfg = func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logBuf, nil)) }
	start := time.Now()
	v.run(t, paths...)
	took := time.Since(start)
	logged := logBuf.String()
	for _, c := range cases {
		e := v.line(t, c.path)
		if e.State != list.Error {
			t.Errorf("%s: state %v, want error", c.path, e.State)
		}
		if got := v.copyOf(t, e); !bytes.Equal(got, good[c.path]) {
			t.Errorf("%s: copy changed to %.60q", c.path, got)
		}
		if n := hits(v.site, c) - before[c.path]; n < 1 || n > c.maxHits {
			t.Errorf("%s: %d requests, want 1 to %d", c.path, n, c.maxHits)
		}
		if h := v.history(t, c.path); !strings.Contains(h.Error, c.reason) {
			t.Errorf("%s: history says %q, want %q", c.path, h.Error, c.reason)
		}
	}
	if !strings.Contains(logged, `msg="fetch failed: too many redirects or a loop"`) || strings.Contains(logged, " url=") {
		t.Errorf("failures not logged grouped by kind:\n%s", logged)
	}
	// Two workers, eight cases, the slowest cut at the 1s total timeout;
	// the 503 costs one second of slow-down to whatever follows it.
	if took > 15*time.Second {
		t.Errorf("the failing run took %v", took)
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func hits(s *hostile.Site, c struct {
	path    string
	maxHits int
	prefix  string
	reason  string
}) int {
	if c.prefix != "" {
		return s.HitsPrefix(c.prefix)
	}
	return s.Hits(c.path)
}

// 503 with Retry-After: the line is an error, the copy is kept, and the
// host is not asked again before Retry-After has passed; then 200.
func TestHostile503Then200(t *testing.T) {
	v := newHostile(t, hostile.Options{})
	v.site.SetHealthy(true)
	v.run(t, "/503-then-200")
	good := v.copyOf(t, v.line(t, "/503-then-200"))
	v.site.SetHealthy(false)
	v.clock = v.clock.Add(2 * time.Hour)
	v.run(t, "/503-then-200")
	if e := v.line(t, "/503-then-200"); e.State != list.Error || !bytes.Equal(v.copyOf(t, e), good) {
		t.Fatalf("after 503: %+v, want error with the copy kept", e)
	}
	v.clock = v.clock.Add(2 * time.Hour)
	v.run(t, "/503-then-200")
	e := v.line(t, "/503-then-200")
	if e.State != list.Downloaded || !strings.Contains(string(v.copyOf(t, e)), "back after 503") {
		t.Errorf("after 200: %+v, want downloaded with the new page", e)
	}
	reqs := v.site.Requests()
	for i, r := range reqs {
		if r.Status == 503 && i+1 < len(reqs) {
			if g := reqs[i+1].Time.Sub(r.Time); g < time.Second-time.Millisecond {
				t.Errorf("next request %v after the 503 with Retry-After: 1", g)
			}
		}
	}
}

// 429 with Retry-After: 2 holds the whole host back for 2 seconds.
func TestHostile429SlowsHost(t *testing.T) {
	v := newHostile(t, hostile.Options{})
	v.cfg = func(c *Config) { c.Concurrency = 1 }
	v.run(t, "/429", "/cp1251")
	if e := v.line(t, "/429"); e.State != list.Error {
		t.Errorf("/429: %+v, want error", e)
	}
	if e := v.line(t, "/cp1251"); e.State != list.Downloaded {
		t.Errorf("/cp1251: %+v, want downloaded", e)
	}
	reqs := v.site.Requests()
	var at429 time.Time
	for _, r := range reqs {
		switch {
		case r.Status == 429:
			at429 = r.Time
		case !at429.IsZero():
			if g := r.Time.Sub(at429); g < 2*time.Second-time.Millisecond {
				t.Errorf("%s requested %v after the 429, want ≥ 2s", r.Path, g)
			}
		}
	}
	if at429.IsZero() {
		t.Fatal("no 429 answered")
	}
}

// Pages in windows-1251, koi8-r, Shift_JIS and with invalid UTF-8: their
// links are found, and the saved copy keeps the page's own bytes.
func TestHostileEncodings(t *testing.T) {
	v := newHostile(t, hostile.Options{})
	var paths []string
	for p := range hostile.EncodedPages {
		paths = append(paths, p)
	}
	v.run(t, paths...)
	for p, want := range hostile.EncodedPages {
		e := v.line(t, p)
		if e.State != list.Downloaded {
			t.Errorf("%s: %+v, want downloaded", p, e)
			continue
		}
		if got := v.copyOf(t, e); !bytes.Contains(got, want.Text) {
			t.Errorf("%s: the saved copy lost the page's own bytes %q:\n%q", p, want.Text, got)
		}
		if l, ok := v.entries(t)[v.base+want.Link]; !ok || l.State != list.Downloaded {
			t.Errorf("%s: its link %s: %+v, want a downloaded line", p, want.Link, l)
		}
	}
}

// Links into the local network and to other schemes are not followed,
// not even as requisites; the start on 127.0.0.1 allows loopback only.
func TestHostilePrivateLinks(t *testing.T) {
	v := newHostile(t, hostile.Options{})
	v.run(t, "/private-links")
	for u := range v.entries(t) {
		if !strings.HasPrefix(u, v.base+"/") {
			t.Errorf("a line for %s", u)
		}
	}
}
