package sitetest

import (
	"slices"
	"sort"
	"testing"
)

// changedPaths returns the paths whose version differs between a and b,
// or that only one of them has, sorted.
func changedPaths(a, b map[string]int) []string {
	var out []string
	for p, v := range b {
		if a[p] != v {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// TestStablePagesChangeLittle checks that with StablePages a change
// touches only the pages that list or are the article, whatever the size
// of the site, that every article stays reachable, and that the crawl
// agrees with Levels.
func TestStablePagesChangeLittle(t *testing.T) {
	s := New(Options{Shape: Articles, Topics: 205, StablePages: true, Now: newClock().Now})
	if n := len(s.Paths()); n != 1+1+2+4+4*6+1+11+2*205 {
		t.Errorf("%d paths, want home, about, requisites, 4 section fronts and 6 pages each, archive front and 11 pages, articles and images", n)
	}
	before := s.Versions()
	added := s.AddTopic("New")
	after := s.Versions()
	// Article 206 is the 52nd of section "science" (page 6) and the 6th of
	// archive page 11.
	want := []string{"/", "/archive/", "/archive/?page=11", added, "/media/206.png",
		"/section/science/", "/section/science/?page=6"}
	sort.Strings(want)
	if got := changedPaths(before, after); !slices.Equal(got, want) {
		t.Errorf("adding an article changed %q, want %q", got, want)
	}
	old := articlePath(t, s, 50) // section science page 2, archive page 3
	s.Delete(old)
	want = []string{"/archive/?page=3", "/media/50.png", old, "/section/science/?page=2"}
	sort.Strings(want)
	if got := changedPaths(after, s.Versions()); !slices.Equal(got, want) {
		t.Errorf("deleting an old article changed %q, want %q", got, want)
	}
	before = s.Versions()
	edited := articlePath(t, s, 7)
	s.EditTopic(edited)
	if got := changedPaths(before, s.Versions()); !slices.Equal(got, []string{edited}) {
		t.Errorf("a silent edit changed %q", got)
	}
	lv := s.Levels()
	for _, tp := range s.topics {
		if _, ok := lv[tp.path]; ok == tp.deleted {
			t.Errorf("article %d (deleted %v) reachable %v", tp.id, tp.deleted, ok)
		}
	}
	crawlAgrees(t, s, []step{{"after the changes", func() {}}})
}
