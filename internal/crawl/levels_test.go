package crawl

import (
	"context"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// A first mirror of the test forum, fetched ahead 16 at a time, ends with
// every line at the site's own link level (requisites at the level of the
// page that needs them: 0), whatever order the pages came in. Fetching
// ahead walks the topics' "older" links far ahead of the index pages, so
// without the link graph up to 83% of the lines ended 1-22 levels too deep
// (levels.go); three runs, since the order differs every time.
func TestFirstMirrorLevels(t *testing.T) {
	for run := range 3 {
		site := sitetest.New(sitetest.Options{Topics: 2000})
		srv := httptest.NewServer(site.Handler())
		l, m, _ := openListMirror(t)
		e := New(Config{
			Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 50},
			Starts: []string{srv.URL + "/"}, Concurrency: 16, Lease: time.Minute, UntilIdle: true,
		}, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := e.Run(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		want := site.Levels()
		var wrong []string
		lines := 0
		l.Scan(context.Background(), func(en *list.Entry) error {
			u, err := url.Parse(en.URL)
			if err != nil {
				t.Fatal(err)
			}
			p := u.EscapedPath()
			if u.RawQuery != "" {
				p += "?" + u.RawQuery
			}
			w, ok := want[p]
			switch {
			case strings.HasPrefix(p, "/static/"):
				w, ok = 1, true // requisites of every page, the start page's among them: level 1 (linkLevel)
			case p == "/robots.txt":
				w, ok = 0, true
			}
			lines++
			if !ok || en.Level != w {
				wrong = append(wrong, p)
				if len(wrong) <= 5 {
					t.Errorf("run %d: %s at level %d, site says %d (known: %v)", run, p, en.Level, w, ok)
				}
			}
			return nil
		})
		if lines < len(want) {
			t.Errorf("run %d: %d lines, the site has %d pages", run, lines, len(want))
		}
		if len(wrong) > 0 {
			slices.Sort(wrong)
			t.Fatalf("run %d: %d of %d lines at a wrong level", run, len(wrong), lines)
		}
	}
}

// The graph moves a URL up with everything below it, each by its own link
// (a page one level down, a requisite at its page's level), and reports
// the moves.
func TestLinkGraphLowers(t *testing.T) {
	g := newLinkGraph()
	var moves []string
	moved := func(u string, level int) { moves = append(moves, u+"@"+string(rune('0'+level))) }
	link := func(from string, fromLevel int, u string, level int) (bool, int) {
		return g.link(from, fromLevel, u, level, moved)
	}
	// A chain found the long way: a(5) → b(6) → c(7), with c's image at 7.
	g.claimed("a", 5, moved)
	if isNew, lv := link("a", 5, "b", 6); !isNew || lv != 6 {
		t.Fatalf("b: new %v level %d", isNew, lv)
	}
	link("b", 6, "c", 7)
	link("c", 7, "c.png", 7)
	link("c", 7, "b", 8) // a link back up changes nothing
	if len(moves) != 0 {
		t.Fatalf("moves before any shortcut: %v", moves)
	}
	// A shortcut to b at level 2 moves b, c and the image up.
	if isNew, lv := link("root", 0, "b", 2); isNew || lv != 2 {
		t.Fatalf("b again: new %v level %d", isNew, lv)
	}
	if want := []string{"b@2", "c@3", "c.png@3"}; !slices.Equal(moves, want) {
		t.Errorf("moves %v, want %v", moves, want)
	}
	// A page fetched at its old level whose parent moved up since: its new
	// link takes the parent's level now.
	moves = nil
	if isNew, lv := link("c", 7, "d", 8); !isNew || lv != 4 {
		t.Errorf("d: new %v level %d, want new at 4", isNew, lv)
	}
	// A claim at a lower level moves the claimed URL and what it leads to.
	g.claimed("c", 1, moved)
	if want := []string{"c@1", "c.png@1", "d@2"}; !slices.Equal(moves, want) {
		t.Errorf("moves %v, want %v", moves, want)
	}
	if lv, ok := g.level("d"); !ok || lv != 2 {
		t.Errorf("level(d) = %d, %v", lv, ok)
	}
	// A page the graph knows deeper than it was fetched at moves up first.
	moves = nil
	g.claimed("x", 9, moved)
	link("x", 9, "x/1", 10)
	if isNew, lv := link("x", 3, "y", 4); !isNew || lv != 4 {
		t.Errorf("y: new %v level %d, want new at 4", isNew, lv)
	}
	if want := []string{"x@3", "x/1@4"}; !slices.Equal(moves, want) {
		t.Errorf("moves %v, want %v", moves, want)
	}
	if g.full() || g.links != 7 {
		t.Errorf("full %v with %d links, want not full with 7", g.full(), g.links)
	}
}
