package inlinks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
			{page: "/r1", level: 5, links: []string{}, want: []string{"/s1@3", "/x@2"}},
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
	if x.edges > MaxEdges {
		t.Fatalf("%d links kept, bound %d", x.edges, MaxEdges)
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
