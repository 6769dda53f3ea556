package crawl

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/list"
)

// passGate lets the fixture site hold each request until the spider's
// next pass has ended: fetches then go at one per worker per pass, as on
// a large list whose passes take long while a local site answers at once
// (the real wiki: a 62,000-line list).
type passGate struct {
	mu     sync.Mutex
	next   chan struct{} // closed when the next pass ends
	opened bool          // no more holding
	passes int
}

func newPassGate() *passGate { return &passGate{next: make(chan struct{})} }

// logHook is a slog.Handler that calls itself with every record, at
// every level: a test learns what the engine does from its log.
type logHook func(slog.Record)

func (h logHook) Enabled(context.Context, slog.Level) bool { return true }
func (h logHook) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h logHook) WithGroup(string) slog.Handler            { return h }
func (h logHook) Handle(_ context.Context, r slog.Record) error {
	h(r)
	return nil
}

// record learns of each pass from its "pass" line (logHook).
func (g *passGate) record(r slog.Record) {
	if r.Message == "pass" {
		g.mu.Lock()
		g.passes++
		close(g.next)
		g.next = make(chan struct{})
		g.mu.Unlock()
	}
}

// hold waits for the end of the next pass, unless the gate is open; false
// if no pass came within a bound, which opens the gate for good: a spider
// that fetches nothing while passes wait for its fetches would otherwise
// hold every request for the bound.
func (g *passGate) hold(ctx context.Context) bool {
	g.mu.Lock()
	next, opened := g.next, g.opened
	g.mu.Unlock()
	if opened {
		return true
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-next:
		return true
	case <-ctx.Done():
		return true
	case <-t.C:
		g.open()
		return false
	}
}

func (g *passGate) open() {
	g.mu.Lock()
	g.opened = true
	g.mu.Unlock()
}

// The real wiki's first mirror under defaults left the Main Page's
// style sheet (level 0) unfetched while it went 58 levels deep: fetching
// ahead goes deep first, and a line fetched ahead that a pass claimed
// still waited for its turn at the bottom of the stack, under every link
// found since. The fixture: a home page with a style sheet and 100 links,
// then a chain of 60 pages each linking 17 leaves and, last, the next
// page of the chain (so that the chain is fetched first); fetches go at
// one per worker per pass (passGate). The style sheet must be fetched
// while the crawl is still shallow.
func TestClaimedAheadLineGoesFirst(t *testing.T) {
	const chain, leaves, deep = 60, 17, 58
	const workers = 16 // cmd/spider's default --concurrency with --delay 0
	gate := newPassGate()
	var (
		mu       sync.Mutex
		deepest  int  // deepest chain page asked for
		styleAt  = -1 // deepest chain page asked for before the style sheet
		timeouts int
	)
	page := func(w http.ResponseWriter, seed string, links ...string) {
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString(`<html><head><link rel="stylesheet" href="/style.css"></head><body>`)
		// A word of its own (letters: numbers do not make a page new) and
		// prose: no pattern of near-identical pages for the defences
		// (traps.go) to cap.
		h := fnv.New32a()
		h.Write([]byte(seed))
		word := []byte(strconv.FormatUint(uint64(h.Sum32()), 26))
		for i, c := range word {
			if c <= '9' {
				word[i] = c - '0' + 'q'
			}
		}
		fmt.Fprintf(&b, "<p>page %s here. %s</p>", word, prose(int(h.Sum32()), 2))
		for _, l := range links {
			fmt.Fprintf(&b, `<a href="%s">x</a>`, l)
		}
		b.WriteString(`</body></html>`)
		w.Write([]byte(b.String()))
	}
	links := func(level int) []string {
		var out []string
		n := leaves
		if level == 0 {
			n = 100
		}
		for i := range n {
			out = append(out, fmt.Sprintf("/leaf/%d/%d", level, i))
		}
		if level < chain {
			out = append(out, fmt.Sprintf("/chain/%d", level+1))
		}
		return out
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/style.css":
			mu.Lock()
			if styleAt < 0 {
				styleAt = deepest
			}
			mu.Unlock()
			gate.open()
			w.Header().Set("Content-Type", "text/css")
			w.Write([]byte("body { color: black }"))
			return
		case p == "/":
			page(w, p, links(0)...)
			return
		case !strings.HasPrefix(p, "/chain/") && !strings.HasPrefix(p, "/leaf/"):
			http.NotFound(w, r)
			return
		}
		if !gate.hold(r.Context()) {
			mu.Lock()
			timeouts++
			mu.Unlock()
		}
		if n, ok := strings.CutPrefix(p, "/chain/"); ok {
			k, _ := strconv.Atoi(n)
			mu.Lock()
			deepest = max(deepest, k)
			if k >= deep {
				gate.open() // the symptom is there: no need to hold the rest
			}
			mu.Unlock()
			page(w, p, links(k)...)
			return
		}
		page(w, p)
	}))
	t.Cleanup(srv.Close)
	l, m, _ := openListMirror(t)
	// The defaults of `spider --profile slow --delay 0`, as on the wiki.
	e := New(Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: 24 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour, Batch: 50},
		Starts: []string{srv.URL + "/"}, Concurrency: workers, HostConns: workers, Lease: 10 * time.Minute, UntilIdle: true,
		Logger: slog.New(logHook(gate.record)),
	}, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 30 * time.Second, MaxConnsPerHost: workers}))
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if timeouts > 0 {
		t.Fatalf("%d requests waited in vain for a pass", timeouts)
	}
	t.Logf("style sheet fetched after chain page %d, %d passes", styleAt, gate.passes)
	if styleAt < 0 || styleAt >= deep {
		t.Errorf("the level-0 style sheet was fetched after chain page %d (-1: never), want before page %d", styleAt, deep)
	}
	n := 0
	l.Scan(context.Background(), func(en *list.Entry) error {
		if en.State != list.Downloaded {
			t.Errorf("%s: %v, want downloaded", en.URL, en.State)
		}
		n++
		return nil
	})
	if want := 1 + 1 + 100 + chain*(1+leaves); n != want {
		t.Errorf("%d lines, want %d", n, want)
	}
}

// A line fetched ahead that a pass claims while its job waits in the
// queue joins the waited lines, which take every other turn with the
// queue, shallowest first; jobs a worker took are not touched, and
// closing hands the claimed lines left back.
func TestWaitedTakesTurns(t *testing.T) {
	r := testRun(t)
	links := func(from string, level int, urls ...string) {
		var adds []list.Add
		for _, u := range urls {
			adds = append(adds, list.Add{URL: "http://h" + u, Level: level + 1})
		}
		r.jobs.mu.Lock()
		r.jobs.register(list.Entry{URL: "http://h" + from, Level: level}, adds, -1, 0, fetchNow)
		r.jobs.mu.Unlock()
	}
	links("/", 0, "/a", "/b", "/chain/1")
	if j, ok := r.jobs.take(); !ok || j.en.URL != "http://h/chain/1" {
		t.Fatalf("took %v, want /chain/1, the link found last", j.en.URL)
	}
	links("/chain/1", 1, "/c", "/chain/2")
	var claimed []list.Entry // as the picker orders them: by level
	for u, level := range map[string]int{"/a": 1, "/b": 1, "/chain/1": 1, "/c": 2} {
		claimed = append(claimed, list.Entry{URL: "http://h" + u, Level: level, State: list.Found})
	}
	slices.SortFunc(claimed, func(a, b list.Entry) int { return cmp.Or(a.Level-b.Level, strings.Compare(a.URL, b.URL)) })
	carried := map[string]bool{}
	for _, en := range claimed {
		carried[en.URL] = true
	}
	carried["http://h/chain/2"] = true // found after the pass began: lost to it
	if mine, _ := r.jobs.decide(carried, claimed, 1); len(mine) != 4 {
		t.Fatalf("claimed as fetched ahead: %v", mine)
	}
	links("/chain/1", 1, "/chain/2b")
	var order []string
	for range 3 {
		j, ok := r.jobs.take()
		if !ok {
			t.Fatal("jobs closed")
		}
		order = append(order, strings.TrimPrefix(j.en.URL, "http://h"))
		if j.ahead && j.en.URL != "http://h/chain/2b" && j.epoch != 1 {
			t.Errorf("%s: epoch %d, want the claim's", j.en.URL, j.epoch)
		}
	}
	// /chain/1 came from the stack: the next turn is the waited lines'.
	if want := []string{"/a", "/chain/2b", "/b"}; !slices.Equal(order, want) {
		t.Errorf("workers got %q, want %q", order, want)
	}
	if left := r.jobs.close(); len(left) != 1 || left[0].en.URL != "http://h/c" {
		t.Errorf("handed back at close: %v, want /c", left)
	}
}

// A worker that finds only lost jobs on the stack (lines another spider
// claimed) takes a waited line instead of waiting: nothing else would
// wake it.
func TestWaitedAfterLostJobs(t *testing.T) {
	r := testRun(t)
	r.jobs.mu.Lock()
	r.jobs.register(list.Entry{URL: "http://h/", Level: 0}, []list.Add{{URL: "http://h/a", Level: 1}, {URL: "http://h/lost", Level: 1}}, -1, 0, fetchNow)
	r.jobs.mu.Unlock()
	// The pass claims /a, and /lost goes to another spider.
	r.jobs.decide(map[string]bool{"http://h/a": true, "http://h/lost": true}, []list.Entry{{URL: "http://h/a", Level: 1, State: list.Found}}, 1)
	r.jobs.mu.Lock()
	r.jobs.turn = false // the stack's turn
	r.jobs.mu.Unlock()
	got := make(chan string, 1)
	go func() { // ends with take, which returns at the latest at close (Cleanup)
		j, _ := r.jobs.take()
		got <- j.en.URL
	}()
	select {
	case u := <-got:
		if u != "http://h/a" {
			t.Errorf("took %q, want /a", u)
		}
	case <-time.After(10 * time.Second):
		t.Error("the worker waits with a claimed line left")
	}
}

// takeURLs takes n jobs and returns their paths.
func takeURLs(t *testing.T, r *run, n int) []string {
	t.Helper()
	var out []string
	for range n {
		j, ok := r.jobs.take()
		if !ok {
			t.Fatal("jobs closed")
		}
		out = append(out, strings.TrimPrefix(j.en.URL, "http://h"))
	}
	return out
}

// linksOf registers the links a page fetched by the stack's walk found.
func linksOf(r *run, from string, level int, urls ...string) {
	var adds []list.Add
	for _, u := range urls {
		adds = append(adds, list.Add{URL: "http://h" + u, Level: level + 1})
	}
	r.jobs.found(&outcome{job: job{en: list.Entry{URL: "http://h" + from, Level: level}}, adds: adds}, -1, 0)
}

// The archive chain of the articles test site waited up to a second a
// page: a pass claimed its next page in the moment between its link being
// found and a worker taking it, and the claim put it behind a thousand
// lines claimed before it. A line claimed while its job waits keeps its
// place in the queue: the next page is the queue's next job still.
func TestClaimedChainLinkKeepsItsPlace(t *testing.T) {
	r := testRun(t)
	linksOf(r, "/", 0, "/a", "/b", "/chain/1")
	if got := takeURLs(t, r, 1); got[0] != "/chain/1" {
		t.Fatalf("took %q, want /chain/1", got)
	}
	linksOf(r, "/chain/1", 1, "/c", "/chain/2")
	var claimed []list.Entry // as the picker orders them: by level
	for _, u := range []string{"/a", "/b", "/c", "/chain/2"} {
		claimed = append(claimed, list.Entry{URL: "http://h" + u, Level: 1 + strings.Count(u, "c"), State: list.Found})
	}
	carried := map[string]bool{}
	for _, en := range claimed {
		carried[en.URL] = true
	}
	r.jobs.decide(carried, claimed, 1)
	// /chain/1 came from the queue: the waited lines' turn, then the queue's.
	if got, want := takeURLs(t, r, 3), []string{"/a", "/chain/2", "/b"}; !slices.Equal(got, want) {
		t.Errorf("workers got %q, want %q", got, want)
	}
	if got := takeURLs(t, r, 1); got[0] != "/c" {
		t.Errorf("then %q, want /c", got)
	}
	if r.jobs.idle() {
		t.Error("idle with five jobs taken and no outcome received")
	}
	if left := r.jobs.close(); len(left) != 0 {
		t.Errorf("handed back at close: %v, want none: every claimed line was taken once", left)
	}
}

// What a page fetched on its turn in claim order finds goes under the
// chain, and a page's last link goes before the other links of pages
// finished after it: on the articles test site, articles fetched on their
// turn each found an image, which the stack took off as fast as they came,
// and the next page of the archive waited under them.
func TestChainGoesBeforeOthersLinks(t *testing.T) {
	r := testRun(t)
	linksOf(r, "/", 0, "/a", "/b")
	r.jobs.decide(map[string]bool{"http://h/a": true, "http://h/b": true}, []list.Entry{{URL: "http://h/a", Level: 1, State: list.Found}, {URL: "http://h/b", Level: 1, State: list.Found}}, 1)
	linksOf(r, "/p", 3, "/chain/1")
	r.jobs.mu.Lock()
	r.jobs.turn = true // the waited lines' turn
	r.jobs.mu.Unlock()
	j, ok := r.jobs.take()
	if !ok || j.en.URL != "http://h/a" || !j.inOrder {
		t.Fatalf("took %v (in order %v), want /a on its turn in claim order", j.en.URL, j.inOrder)
	}
	r.jobs.found(&outcome{job: j, adds: []list.Add{{URL: "http://h/img/a", Level: 2}}}, -1, 0)
	if got := takeURLs(t, r, 1); got[0] != "/chain/1" {
		t.Errorf("took %q, want /chain/1, not what /a found on its turn", got)
	}
	linksOf(r, "/chain/1", 4, "/c1", "/c2", "/chain/2")
	linksOf(r, "/other", 2, "/o1", "/o2", "/o3")
	// /b (the waited lines' turn), then /o3 and /chain/2, each last on
	// its page, before /o1 and /o2.
	got := takeURLs(t, r, 3)
	if !slices.Contains(got, "/chain/2") {
		t.Errorf("workers got %q, want /chain/2 among them: a page's last link goes before others' links", got)
	}
}

// A fetch ahead that finished holds no job: however many wait for a slow
// pass to claim them, the chain goes on.
func TestFinishedFetchesHoldNoJob(t *testing.T) {
	a := newAhead(2, 1<<20)
	a.set(true)
	link := func(u string) {
		a.links(list.Entry{URL: "http://h/", Level: 0}, []list.Add{{URL: "http://h" + u, Level: 1}}, -1, 1, fetchNow)
	}
	link("/a")
	link("/b")
	for range 2 {
		j, ok := a.pop()
		if !ok {
			t.Fatal("no job")
		}
		a.done(&outcome{job: j, res: list.Result{URL: j.en.URL, State: list.Downloaded}, copy: &pageCopy{body: []byte("x")}})
	}
	link("/c")
	if j, ok := a.pop(); !ok || j.en.URL != "http://h/c" {
		t.Errorf("with two fetches ahead done and undecided (cap 2): popped %v, %v; want /c", j.en.URL, ok)
	}
}
