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

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// heldEnv is an env whose home page links /p/0 to /p/9, with a budget of 3
// links per host per pass; with etag, the home page carries an ETag and
// answers a conditional GET 304.
func heldEnv(t *testing.T, etag bool) (v *env, answers func() map[int]int) {
	t.Helper()
	v = newEnv(t)
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, `<a href="/p/%d">%d</a> `, i, i)
		v.site.set(fmt.Sprintf("/p/%d", i), 200, "leaf")
	}
	v.site.set("/", 200, b.String())
	var mu sync.Mutex
	home := map[int]int{} // status → answers of the home page
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			v.site.ServeHTTP(w, r)
			return
		}
		status := 200
		if etag {
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				status = http.StatusNotModified
			}
		}
		mu.Lock()
		home[status]++
		mu.Unlock()
		if status == http.StatusNotModified {
			w.WriteHeader(status)
			return
		}
		v.site.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	v.base = srv.URL
	v.cfg = func(c *Config) { c.MaxNewPerHost = 3 }
	return v, func() map[int]int {
		mu.Lock()
		defer mu.Unlock()
		return map[int]int{200: home[200], 304: home[304]}
	}
}

func (v *env) history(t *testing.T, path string) meta.Record {
	t.Helper()
	return historyOf(t, v.list, v.base+path)
}

// historyOf returns the record of u in the fetch history beside l.
func historyOf(t *testing.T, l *list.List, u string) meta.Record {
	t.Helper()
	recs, err := meta.Open(l.Path()+meta.Suffix, time.Second).Get([]string{u})
	if err != nil {
		t.Fatal(err)
	}
	return recs[u]
}

func (v *env) lines(t *testing.T) int {
	t.Helper()
	n := 0
	if err := v.list.Scan(context.Background(), func(*list.Entry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// Links that the per-host budget held back are taken on the page's later
// visits, though the page answers 304, or the same body, every time: 3 of
// its 10 links a visit, so all of them after four visits. On the way the
// page's history holds what is still held back, and nothing once all are
// taken.
func TestHeldLinksTakenOnUnchangedVisits(t *testing.T) {
	for _, tc := range []struct {
		name string
		etag bool
	}{{"304", true}, {"same body", false}} {
		t.Run(tc.name, func(t *testing.T) {
			// Not offered again in the run that held them (that is
			// TestHeldLinksTakenInTheRun): only visits take them.
			defer func(n int) { maxHeldInRun = n }(maxHeldInRun)
			maxHeldInRun = 0
			v, answers := heldEnv(t, tc.etag)
			for visit, want := range []int{3, 6, 9, 10, 10} {
				if visit > 0 {
					v.clock = v.clock.Add(2 * time.Hour) // every line is due again
				}
				sum := v.crawl(t, time.Hour)
				if got := v.lines(t) - 1; got != want {
					t.Fatalf("visit %d: %d of the home page's links in the list, want %d", visit+1, got, want)
				}
				if held := v.history(t, "/").Held; len(held) != 10-want {
					t.Errorf("visit %d: %d links held back in the history, want %d", visit+1, len(held), 10-want)
				}
				if visit > 0 && sum.Unchanged < 1 {
					t.Errorf("visit %d: %+v, want the home page unchanged", visit+1, sum)
				}
			}
			for i := range 10 {
				if en := v.line(t, fmt.Sprintf("%s/p/%d", v.base, i)); en.State != list.Downloaded || en.Level != 1 {
					t.Errorf("/p/%d: %+v", i, en)
				}
			}
			a := answers()
			if tc.etag && (a[200] != 1 || a[304] != 4) {
				t.Errorf("home page answered %v, want one 200, then 304s", a)
			}
			if !tc.etag && a[200] != 5 {
				t.Errorf("home page answered %v, want five 200s", a)
			}
		})
	}
}

// The spider that held links back offers them again at its next passes,
// with their budgets: one run takes all ten links of the home page, which
// it fetches once, 3 a pass. The page's history lists the links held back
// at its visit until the next one, which offers them again: a new run does
// not know that they are in the list, and takes 3 with its budget.
func TestHeldLinksTakenInTheRun(t *testing.T) {
	v, answers := heldEnv(t, false)
	sum := v.crawl(t, time.Hour)
	if n := v.lines(t); n != 11 {
		t.Errorf("%d lines, want the home page and its 10 links", n)
	}
	if a := answers(); a[200] != 1 {
		t.Errorf("home page answered %v, want once", a)
	}
	if sum.Cycles < 4 || sum.Fetched != 11 {
		t.Errorf("%+v, want 11 pages fetched in at least 4 passes", sum)
	}
	if held := v.history(t, "/").Held; len(held) != 7 {
		t.Errorf("%d links held back in the history, want the 7 of the visit", len(held))
	}
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	if held := v.history(t, "/").Held; len(held) != 4 {
		t.Errorf("after the next visit, %d links held back in the history, want 4", len(held))
	}
}

// A spider whose level limit leaves the links of its start page to
// others still adds them all to the list before it calls itself idle,
// though its passes claim nothing while it offers the held ones again.
func TestHeldLinksAddedBeforeIdle(t *testing.T) {
	v, _ := heldEnv(t, false)
	v.cfg = func(c *Config) { c.MaxNewPerHost, c.Profile.MaxLevel = 3, 0 }
	if sum := v.crawl(t, time.Hour); sum.Fetched != 1 {
		t.Errorf("%+v, want the start page alone fetched", sum)
	}
	if n := v.lines(t); n != 11 {
		t.Errorf("%d lines, want the home page and its 10 links", n)
	}
}

// A visit that finds the page changed takes its links afresh: the links
// held back that the page no longer has are forgotten, and the ones it
// still has are still held.
func TestHeldLinksOfChangedPage(t *testing.T) {
	v, _ := heldEnv(t, false)
	v.crawl(t, time.Hour)
	if held := v.history(t, "/").Held; len(held) != 7 {
		t.Fatalf("%d links held back, want 7", len(held))
	}
	var b strings.Builder
	for _, i := range []int{0, 1, 2, 3, 4, 5, 6, 9} {
		fmt.Fprintf(&b, `<a href="/p/%d">%d</a> `, i, i)
	}
	fmt.Fprintf(&b, `<img src="/i.png">`)
	v.site.set("/", 200, b.String())
	v.site.set("/i.png", 200, "png")
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	var got []string
	for _, h := range v.history(t, "/").Held {
		got = append(got, strings.TrimPrefix(h.URL, v.base)+" "+fmt.Sprint(h.Kind))
	}
	// The budget took /p/0 to /p/2 (in the list already: it counts every
	// link); /p/7 and /p/8 are gone.
	if want := "/p/3 1,/p/4 1,/p/5 1,/p/6 1,/p/9 1,/i.png 3"; strings.Join(got, ",") != want {
		t.Errorf("held back after the change: %s, want %s", strings.Join(got, ","), want)
	}
}

// The per-host budget counts links new to the spider: a link it took in
// an earlier pass is in the list, and costs nothing when a later page has
// it too. A budget of 3 takes /a, /b and /c from the home page, then the
// three new links of /a beside the two it shares with the home page.
func TestBudgetCountsNewLinks(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)
	v.site.set("/a", 200, `<a href="/b">b</a> <a href="/c">c</a> <a href="/x">x</a> <a href="/y">y</a> <a href="/z">z</a>`)
	for _, p := range []string{"/b", "/c", "/x", "/y", "/z"} {
		v.site.set(p, 200, "leaf")
	}
	// Without fetching ahead, /a is fetched after the pass that adds it,
	// with the next pass's budget.
	v.cfg = func(c *Config) { c.MaxNewPerHost, c.Ahead = 3, -1 }
	v.crawl(t, time.Hour)
	if n := v.lines(t); n != 7 {
		t.Errorf("%d lines, want 7: the home page's three links, then the three new ones of /a", n)
	}
	if held := v.history(t, "/a").Held; len(held) != 0 {
		t.Errorf("/a holds back %v, want none", held)
	}
}
