package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
// if no pass came within a bound.
func (g *passGate) hold(ctx context.Context) bool {
	g.mu.Lock()
	next, opened := g.next, g.opened
	g.mu.Unlock()
	if opened {
		return true
	}
	t := time.NewTimer(20 * time.Second)
	defer t.Stop()
	select {
	case <-next:
		return true
	case <-ctx.Done():
		return true
	case <-t.C:
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
	page := func(w http.ResponseWriter, links ...string) {
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString(`<html><head><link rel="stylesheet" href="/style.css"></head><body>`)
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
			page(w, links(0)...)
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
			page(w, links(k)...)
			return
		}
		page(w)
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
