package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// A chain of pages each linking only the next is crawled with fetching
// ahead (Delay 0): every page is downloaded once, not once ahead and once
// more when claimed, and its copy is its own.
func TestFetchAheadChain(t *testing.T) {
	v := newEnv(t)
	const n = 40
	v.site.set("/", 200, `<a href="/p/1">1</a>`)
	for i := 1; i <= n; i++ {
		v.site.set(fmt.Sprintf("/p/%d", i), 200, fmt.Sprintf(`page %d <a href="/p/%d">next</a>`, i, i+1))
	}
	v.cfg = func(c *Config) { c.ArchiveAfter = 1 }
	sum := v.crawl(t, time.Hour)
	if sum.Fetched != n+1 || sum.Archived != 1 { // /p/41 is 404
		t.Errorf("fetched %d, archived %d; want %d, 1", sum.Fetched, sum.Archived, n+1)
	}
	for i := 1; i <= n; i++ {
		p := fmt.Sprintf("/p/%d", i)
		en := v.line(t, v.base+p)
		if en.State != list.Downloaded || en.Spider != "" || en.Level != i {
			t.Errorf("%s: %+v", p, en)
			continue
		}
		if got := v.file(t, en.File); !strings.HasPrefix(got, fmt.Sprintf("page %d ", i)) {
			t.Errorf("%s: copy %q", p, got)
		}
	}
	v.site.mu.Lock()
	defer v.site.mu.Unlock()
	for p, hits := range v.site.hits {
		if hits != 1 {
			t.Errorf("%s fetched %d times, want once", p, hits)
		}
	}
}

// claimAsOther adds the site's path to the list and claims it for a live
// spider "other", which keeps its lock until the test ends.
func (v *env) claimAsOther(t *testing.T, path string) {
	t.Helper()
	other, err := list.LockSpider(v.list.Path(), "other")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Unlock() })
	c := &list.Cycle{Spider: "other", Now: v.clock, Add: []list.Add{{URL: v.base + path, Level: 1}},
		Pick: &claim.Picker{P: claim.Profile{Window: time.Hour, MaxLevel: -1, Batch: 1}, Now: v.clock}}
	if err := v.list.Run(context.Background(), c); err != nil || len(c.Claimed) != 1 {
		t.Fatalf("other's claim: %v, %d claimed", err, len(c.Claimed))
	}
}

// A link fetched ahead whose line another live spider has claimed is not
// written into the mirror, nor recorded: the line stays the other's.
func TestFetchAheadLeavesOthersClaims(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/b">b</a>`)
	v.site.set("/b", 200, "b, as this spider saw it")
	v.claimAsOther(t, "/b")
	sum := v.crawl(t, time.Hour)
	if en := v.line(t, v.base+"/b"); en.Spider != "other" || en.State != list.Claimed || en.File != "" {
		t.Errorf("/b after the crawl: %+v", en)
	}
	if _, err := v.m.Stat(strings.TrimPrefix(v.base, "http://") + "/b.html"); err == nil {
		t.Error("the copy of a line fetched ahead but claimed by another spider was written")
	}
	if sum.Fetched != 1 {
		t.Errorf("fetched %d, want 1 (the home page)", sum.Fetched)
	}
	v.site.mu.Lock()
	defer v.site.mu.Unlock()
	if hits := v.site.hits["/b"]; hits != 1 {
		t.Errorf("/b fetched %d times, want once, ahead of a claim", hits)
	}
}

// Fetching ahead pauses while the copies waiting for a pass hold
// Config.AheadBytes, and goes on once a pass has taken them.
func TestFetchAheadBytes(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Concurrency: 2, AheadBytes: 1000, Now: func() time.Time { return v.clock }},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	e.setAhead(true)
	link := func(u string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.addLinks(list.Entry{URL: v.base + "/", Level: 0}, []list.Add{{URL: v.base + u, Level: 1}})
	}
	done := func(u string, size int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.aheadDone(v.base+u, &outcome{res: list.Result{URL: v.base + u, State: list.Downloaded}, copy: &pageCopy{body: make([]byte, size)}})
	}
	link("/a")
	link("/b")
	if len(e.stack) != 2 {
		t.Fatalf("%d links fetched ahead, want 2", len(e.stack))
	}
	done("/a", 600)
	done("/b", 600)
	link("/c")
	if len(e.stack) != 2 || e.aheadHeld != 1200 {
		t.Fatalf("with 1200 bytes held (cap 1000): %d links fetched ahead, %d bytes held; want 2, 1200", len(e.stack), e.aheadHeld)
	}
	// The pass claims /a and loses /b to another spider: both copies leave.
	e.decide(map[string]bool{v.base + "/a": true, v.base + "/b": true}, []list.Entry{{URL: v.base + "/a"}}, 1)
	if e.aheadHeld != 0 {
		t.Fatalf("%d bytes held after the pass, want 0", e.aheadHeld)
	}
	link("/d")
	if len(e.stack) != 3 {
		t.Errorf("after the pass: %d links fetched ahead, want 3 (/a, /b, /d)", len(e.stack))
	}
}

// A pass waits for its spacing while fetches are queued for the workers,
// and runs at once when none is: the workers then wait for it (the end of
// a first mirror, whose last fetches ahead only a pass can claim). With
// nothing left at all, a pass is due too: only it can tell that the crawl
// is over (TestAheadLagLostLine hung without).
func TestPassDueOnceWorkersWait(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Concurrency: 2, AheadLag: -1, Now: func() time.Time { return v.clock }},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	e.mu.Lock()
	e.setAhead(true)
	e.addLinks(list.Entry{URL: v.base + "/", Level: 0}, []list.Add{{URL: v.base + "/a", Level: 1}, {URL: v.base + "/b", Level: 1}})
	e.mu.Unlock()
	if e.passDue(0, false) {
		t.Fatal("pass due before its spacing with two fetches queued")
	}
	if !e.passDue(0, true) {
		t.Fatal("pass not due after its spacing with fetches ahead undecided")
	}
	finish := func() {
		j := e.nextAhead()
		e.finish(j, list.Result{URL: j.en.URL, State: list.Error}, nil, nil)
	}
	finish()
	if e.passDue(0, false) {
		t.Fatal("pass due before its spacing with one fetch still queued")
	}
	finish()
	if !e.passDue(0, false) {
		t.Fatal("pass not due with no fetch left for the workers and two outcomes waiting for their claim")
	}
	e.decide(map[string]bool{v.base + "/a": true, v.base + "/b": true}, nil, 1)
	if !e.passDue(0, false) {
		t.Fatal("pass not due with nothing left at all: only a pass can tell that the crawl is over")
	}
	if e.passDue(1, false) {
		t.Fatal("pass due with nothing to record, one claim in flight")
	}
}

// A page first reached through a deep path while fetching ahead, then
// linked from a shallower page before it is stored, ends at the shallower
// level, and so do its own links: fetching deep first must not decide
// levels, which the fast spider's depth limit reads. The site orders the
// fetches: /shallow answers once /x was asked for (so /x is first found
// at level 3, under /deep/2), and /x answers once /marker, which only
// /shallow links to, was asked for (so /shallow's link to /x, at level 2,
// was taken before /x is stored).
func TestFetchAheadLowersLevel(t *testing.T) {
	v := newEnv(t)
	var (
		reachedX, reachedMarker = make(chan struct{}), make(chan struct{})
		onceX, onceMarker       sync.Once
	)
	wait := func(c <-chan struct{}, what string) {
		select {
		case <-c:
		case <-time.After(10 * time.Second):
			t.Errorf("%s was not asked for", what)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/x":
			onceX.Do(func() { close(reachedX) })
			wait(reachedMarker, "/marker")
		case "/marker":
			onceMarker.Do(func() { close(reachedMarker) })
		case "/shallow":
			wait(reachedX, "/x")
		}
		v.site.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	v.base = srv.URL
	v.site.set("/", 200, `<a href="/shallow">s</a> <a href="/deep/1">d</a>`)
	v.site.set("/shallow", 200, `<a href="/x">x</a> <a href="/marker">m</a>`)
	v.site.set("/marker", 200, `m`)
	v.site.set("/deep/1", 200, `<a href="/deep/2">2</a>`)
	v.site.set("/deep/2", 200, `<a href="/x">x</a>`)
	v.site.set("/x", 200, `<a href="/y">y</a>`)
	v.site.set("/y", 200, `y`)
	v.crawl(t, time.Hour)
	for path, want := range map[string]int{"/shallow": 1, "/deep/2": 2, "/x": 2, "/y": 3} {
		if en := v.line(t, v.base+path); en.Level != want || en.State != list.Downloaded {
			t.Errorf("%s: level %d, state %v; want level %d, downloaded", path, en.Level, en.State, want)
		}
	}
	if n := v.hits("/x"); n != 1 {
		t.Errorf("/x fetched %d times, want once", n)
	}
}

// A page's last new link is fetched ahead at once and its other new links
// AheadLag later, so their answers do not arrive with its own: with a lag
// of half a second, /a and /b are not asked for in the 200 ms after /c
// (last on the page) is; without one, all three are asked for together.
func TestAheadLag(t *testing.T) {
	for _, tc := range []struct {
		lag      time.Duration
		together bool
	}{{500 * time.Millisecond, false}, {-1, true}} {
		t.Run(fmt.Sprint(tc.lag), func(t *testing.T) {
			v := newEnv(t)
			var (
				mu           sync.Mutex
				asked        = map[string]bool{}
				one, both    = make(chan struct{}), make(chan struct{})
				once1, once2 sync.Once
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked[r.URL.Path] = true
				if asked["/a"] || asked["/b"] {
					once1.Do(func() { close(one) })
				}
				if asked["/a"] && asked["/b"] {
					once2.Do(func() { close(both) })
				}
				mu.Unlock()
				if r.URL.Path == "/c" {
					if tc.together {
						select {
						case <-both:
						case <-time.After(10 * time.Second):
							t.Error("no lag: /a and /b were not asked for while /c was")
						}
					} else {
						select {
						case <-one:
							t.Errorf("lag %v: /a or /b asked for with /c, the page's last new link", tc.lag)
						case <-time.After(200 * time.Millisecond):
						}
					}
				}
				v.site.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			v.base = srv.URL
			v.site.set("/", 200, `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)
			for _, p := range []string{"/a", "/b", "/c"} {
				v.site.set(p, 200, p)
			}
			v.cfg = func(c *Config) { c.Concurrency, c.AheadLag = 4, tc.lag }
			if sum := v.crawl(t, time.Hour); sum.Fetched != 4 {
				t.Errorf("fetched %d pages, want 4", sum.Fetched)
			}
			for _, p := range []string{"/a", "/b", "/c"} {
				if n := v.hits(p); n != 1 {
					t.Errorf("%s fetched %d times, want once", p, n)
				}
			}
		})
	}
}

// A link whose fetch ahead waits out its lag is not fetched at all if a
// pass meanwhile finds its line claimed by another live spider.
func TestAheadLagLostLine(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/b">b</a> <a href="/c">c</a>`)
	v.site.set("/b", 200, "b")
	v.site.set("/c", 200, "c")
	v.claimAsOther(t, "/b")
	v.cfg = func(c *Config) { c.AheadLag = time.Second }
	if sum := v.crawl(t, time.Hour); sum.Fetched != 2 {
		t.Errorf("fetched %d, want 2 (/ and /c)", sum.Fetched)
	}
	if n := v.hits("/b"); n != 0 {
		t.Errorf("/b, claimed by another spider before its lag ran out, fetched %d times", n)
	}
	if en := v.line(t, v.base+"/b"); en.Spider != "other" || en.State != list.Claimed {
		t.Errorf("/b after the crawl: %+v", en)
	}
}

// A URL still being fetched ahead when fetching ahead went off and on
// again (its link graph starts empty) is not registered a second time: a
// second job would outnumber Config.Ahead's tokens, and its outcome would
// overwrite the first's.
func TestAheadAfterGraphReset(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Concurrency: 2, Now: func() time.Time { return v.clock }},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	e.mu.Lock()
	defer e.mu.Unlock()
	link := func() {
		e.addLinks(list.Entry{URL: v.base + "/", Level: 0}, []list.Add{{URL: v.base + "/u", Level: 1}})
	}
	e.setAhead(true)
	link()
	e.setAhead(false)
	e.setAhead(true)
	link()
	if len(e.stack) != 1 || len(e.aheadq) != 1 || e.queued.Load() != 1 {
		t.Errorf("after a reset: %d jobs, %d tokens, %d queued; want 1 each", len(e.stack), len(e.aheadq), e.queued.Load())
	}
}

// A link fetched ahead whose line was fetched before, by an earlier run
// (the link graph of a spider starts empty), keeps its history: the answer
// fetched ahead is dropped once the pass sees the line's state, and the
// line is fetched again as any claimed line is, with its fetch history. An
// unchanged page is then not written again nor counted as changed, and its
// attempt count goes on. That costs one request.
func TestFetchAheadKeepsHistory(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "a, the same in both runs")
	v.cfg = func(c *Config) { c.Starts = []string{v.base + "/a"} }
	if sum := v.crawl(t, time.Hour); sum.Fetched != 1 {
		t.Fatalf("first crawl %+v, want /a fetched", sum)
	}
	first := v.clock
	line := v.line(t, v.base+"/a")
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := chtimes(v.mdir, line.File, old); err != nil {
		t.Fatal(err)
	}
	// "/", new, is claimed first (a line never fetched before the others
	// of its level), alone; it links /a, which is fetched ahead: the next
	// pass claims it first.
	v.cfg = func(c *Config) { c.Profile.Batch = 1 }
	v.clock = v.clock.Add(2 * time.Hour)
	if sum := v.crawl(t, time.Hour); sum.Unchanged != 1 || sum.Fetched != 1 {
		t.Errorf("second crawl %+v, want / fetched and /a unchanged", sum)
	}
	if hits := v.hits("/a"); hits != 3 {
		t.Errorf("/a asked for %d times, want 3: first crawl, ahead, claimed", hits)
	}
	if fi, err := v.m.Stat(line.File); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the unchanged copy of /a was written again (%v, %v)", fi.ModTime(), err)
	}
	recs, err := meta.Open(v.list.Path()+meta.Suffix, time.Second).Get([]string{v.base + "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if h := recs[v.base+"/a"]; h.Attempts != 2 || !h.LastChanged.Equal(first) || h.Unchanged != 1 {
		t.Errorf("history of /a: attempts %d, last changed %v, unchanged %d; want 2, %v, 1",
			h.Attempts, h.LastChanged, h.Unchanged, first)
	}
}

// A visited line whose fetch ahead failed is left alone for the rest of
// the retry backoff, like any line that failed: it is not claimed to be
// asked for again at once.
func TestFetchAheadFailureBacksOffVisitedLine(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 500, "down")
	v.cfg = func(c *Config) { c.Starts = []string{v.base + "/a"} }
	if sum := v.crawl(t, time.Hour); sum.Errors != 1 {
		t.Fatalf("first crawl %+v, want /a failed", sum)
	}
	v.cfg = func(c *Config) { c.Profile.Batch = 1 }
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	if hits := v.hits("/a"); hits != 2 {
		t.Errorf("/a asked for %d times, want 2: first crawl, ahead", hits)
	}
	if en := v.line(t, v.base+"/a"); en.State != list.Error || en.Spider != "" {
		t.Errorf("/a after the second crawl: %+v", en)
	}
}
