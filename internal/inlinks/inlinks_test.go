package inlinks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// op is a step of a table test: a parse of page with links, or (gone
// set) the page found gone; want is the linkers the step returns.
type op struct {
	page  string
	level int
	links []string
	gone  bool
	want  []string // "URL@level", sorted
}

func TestIndex(t *testing.T) {
	tests := []struct {
		name string
		ops  []op
	}{
		{"a first parse names nothing", []op{
			{page: "/s1", level: 3, links: []string{"/a", "/b"}},
		}},
		{"a page found gone names its linkers", []op{
			{page: "/s1", level: 3, links: []string{"/a", "/b"}},
			{page: "/r1", level: 5, links: []string{"/b", "/a"}},
			{page: "/x", level: 2, links: []string{"/b"}},
			{page: "/a", gone: true, want: []string{"/r1@5", "/s1@3"}},
		}},
		{"a listing that lost a link names the other linkers of it", []op{
			{page: "/s1", level: 3, links: []string{"/a", "/b"}},
			{page: "/r1", level: 5, links: []string{"/b", "/a", "/c"}},
			{page: "/x", level: 2, links: []string{"/b"}},
			{page: "/s1", level: 3, links: []string{"/b"}, want: []string{"/r1@5"}},
			// r1 lost a too: s1 no longer links it, so nobody else.
			{page: "/r1", level: 5, links: []string{"/b", "/c"}},
			// r1 lost all it had (an error page served with 200): nothing.
			{page: "/r1", level: 5, links: []string{}},
			{page: "/x", level: 2, links: []string{"/b", "/r1"}},
			// r1 has no links: kept out, so x's loss of b names s1 alone.
			{page: "/x", level: 2, links: []string{"/r1"}, want: []string{"/s1@3"}},
		}},
		{"a listing that lost and gained links scrolled: nothing", []op{
			{page: "/", level: 0, links: []string{"/a", "/b"}},
			{page: "/r1", level: 5, links: []string{"/b"}},
			{page: "/", level: 0, links: []string{"/new", "/a"}},
		}},
		{"a listing unchanged names nothing", []op{
			{page: "/s1", level: 3, links: []string{"/a", "/b"}},
			{page: "/r1", level: 5, links: []string{"/a"}},
			{page: "/s1", level: 3, links: []string{"/b", "/a", "/a"}},
		}},
		{"the level is the linker's at its latest parse", []op{
			{page: "/s1", level: 7, links: []string{"/a"}},
			{page: "/s1", level: 4, links: []string{"/a", "/b"}},
			{page: "/a", gone: true, want: []string{"/s1@4"}},
		}},
		{"a page gone forgets its own links", []op{
			{page: "/s1", level: 3, links: []string{"/a"}},
			{page: "/a", level: 4, links: []string{"/s1"}},
			{page: "/a", gone: true, want: []string{"/s1@3"}},
			{page: "/s1", gone: true},
		}},
		{"a page found gone that nobody links names nothing", []op{
			{page: "/s1", level: 3, links: []string{"/a"}},
			{page: "/zzz", gone: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := New()
			for i, o := range tt.ops {
				var got []Linker
				if o.gone {
					got = x.Gone(o.page)
				} else {
					got = x.Parsed(o.page, o.level, o.links)
				}
				if s := show(got); !slices.Equal(s, o.want) {
					t.Errorf("step %d (%s): got %v, want %v", i, o.page, s, o.want)
				}
				check(t, x)
			}
		})
	}
}

func show(ls []Linker) []string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s@%d", l.URL, l.Level))
	}
	slices.Sort(out)
	return out
}

// A listing that lost a quarter of its links or fewer names their other
// linkers; one that lost more (a page served broken) names none.
func TestLostMostNamesNothing(t *testing.T) {
	links := func(lo, hi int) []string {
		var out []string
		for i := lo; i < hi; i++ {
			out = append(out, fmt.Sprintf("/a%d", i))
		}
		return out
	}
	for _, tc := range []struct {
		keep int // of 20 links, the first keep stay
		want int
	}{{19, 1}, {15, 1}, {14, 0}, {0, 0}} {
		x := New()
		x.Parsed("/s", 3, links(0, 20))
		x.Parsed("/r", 4, links(0, 20))
		if got := x.Parsed("/s", 3, links(0, tc.keep)); len(got) != tc.want {
			t.Errorf("kept %d of 20: named %v, want %d", tc.keep, show(got), tc.want)
		}
		check(t, x)
	}
}

// One parse names at most MaxLinkers pages, and MaxLinkers linkers of
// one page are all named.
func TestLinkersNamed(t *testing.T) {
	x := New()
	own := []string{"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h"}
	for i := range MaxLinkers - 1 {
		x.Parsed(fmt.Sprintf("/p%d", i), 1, []string{"/g"})
		x.Parsed(fmt.Sprintf("/q%d", i), 1, []string{"/h"})
	}
	x.Parsed("/s", 1, own)
	if got := x.Gone("/g"); len(got) != MaxLinkers {
		t.Errorf("/g gone, linked from %d pages: named %d", MaxLinkers, len(got))
	}
	if got := x.Parsed("/s", 1, own[:6]); len(got) != MaxLinkers {
		t.Errorf("/g and /h had %d other linkers: named %d, want the first %d", 2*(MaxLinkers-1), len(got), MaxLinkers)
	}
	check(t, x)
}

// A page keeps its first MaxLinks distinct links; a page without links is
// not kept.
func TestLinksKept(t *testing.T) {
	x := New()
	var links []string
	for i := range MaxLinks + 10 {
		links = append(links, fmt.Sprintf("/a%d", i), fmt.Sprintf("/a%d", i))
	}
	x.Parsed("/s", 1, links)
	if n := len(x.pages["/s"].links); n != MaxLinks {
		t.Errorf("%d links kept of %d distinct, want %d", n, MaxLinks+10, MaxLinks)
	}
	if got := x.Gone(fmt.Sprintf("/a%d", MaxLinks)); got != nil {
		t.Errorf("a link past the first %d named %v", MaxLinks, show(got))
	}
	x.Parsed("/empty", 1, nil)
	if _, ok := x.pages["/empty"]; ok {
		t.Error("a page without links kept")
	}
	check(t, x)
}

// The index may be used by several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	x := New()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				page := fmt.Sprintf("/p%d", (g*500+i)%300)
				x.Parsed(page, 1, []string{fmt.Sprintf("/a%d", i%50), fmt.Sprintf("/a%d", (i+1)%50)})
				if i%7 == 0 {
					x.Gone(fmt.Sprintf("/a%d", i%50))
				}
			}
		}()
	}
	wg.Wait()
	check(t, x)
}

// TestCrowdNamesNothing: a page linked from more than MaxLinkers pages
// names none of them, even once fewer link it, until nobody does.
func TestCrowdNamesNothing(t *testing.T) {
	x := New()
	for i := range MaxLinkers + 1 {
		x.Parsed(fmt.Sprintf("/p%d", i), 1, []string{"/nav", fmt.Sprintf("/own%d", i)})
	}
	if got := x.Gone("/nav"); got != nil {
		t.Fatalf("a page linked from %d pages named %d", MaxLinkers+1, len(got))
	}
	for i := range MaxLinkers {
		x.Parsed(fmt.Sprintf("/p%d", i), 1, []string{fmt.Sprintf("/own%d", i)})
	}
	if got := x.Gone("/nav"); got != nil {
		t.Fatalf("once over, the count is no longer complete; named %v", show(got))
	}
	x.Gone(fmt.Sprintf("/p%d", MaxLinkers)) // the last linker goes
	x.Parsed("/q", 2, []string{"/nav"})
	if got := show(x.Gone("/nav")); !slices.Equal(got, []string{"/q@2"}) {
		t.Fatalf("after nobody linked it, a new linker: got %v", got)
	}
	check(t, x)
}

// TestBounded: past MaxEdges the index forgets pages, and its counts
// stay those of the pages it keeps.
func TestBounded(t *testing.T) {
	x := New()
	r := rand.New(rand.NewPCG(1, 2))
	pages := 3 * MaxEdges / 100
	for i := range pages {
		links := make([]string, 1+r.IntN(200))
		for j := range links {
			links[j] = fmt.Sprintf("/t%d", r.IntN(5000))
		}
		x.Parsed(fmt.Sprintf("/p%d", i%(pages/2)), r.IntN(9), links)
		if i%997 == 0 {
			x.Gone(fmt.Sprintf("/p%d", r.IntN(pages/2)))
		}
	}
	if x.edges > MaxEdges || len(x.pages) > MaxPages {
		t.Fatalf("%d links of %d pages kept, bounds %d and %d", x.edges, len(x.pages), MaxEdges, MaxPages)
	}
	if len(x.pages) == pages/2 {
		t.Fatalf("all %d pages kept: the bound was never reached", len(x.pages))
	}
	check(t, x)
}

// check verifies that the reverse index is exactly the pages' links.
func check(t *testing.T, x *Index) {
	t.Helper()
	count := map[uint64]int{}
	by := map[uint64][]string{}
	edges := 0
	for u, p := range x.pages {
		edges += len(p.links)
		if len(p.links) > MaxLinks {
			t.Fatalf("%s keeps %d links", u, len(p.links))
		}
		for _, h := range p.links {
			count[h]++
			by[h] = append(by[h], u)
		}
	}
	if edges != x.edges {
		t.Fatalf("edges %d, counted %d", x.edges, edges)
	}
	if len(count) != len(x.in) {
		t.Fatalf("%d pages linked, %d in the reverse index", len(count), len(x.in))
	}
	for h, l := range x.in {
		if l.n != count[h] {
			t.Fatalf("count %d, pages linking %d", l.n, count[h])
		}
		if l.over {
			if l.urls != nil {
				t.Fatalf("over, yet %d urls kept", len(l.urls))
			}
			continue
		}
		got, want := slices.Sorted(slices.Values(l.urls)), slices.Sorted(slices.Values(by[h]))
		if !slices.Equal(got, want) {
			t.Fatalf("linkers %s, want %s", strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}
