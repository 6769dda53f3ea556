package change

import (
	"testing"
	"time"
)

// A page's prior is the window times the share of its links that are the
// site's navigation (the start page's links and the start page), counting
// its own place: an article keeps nearly the window, a listing a fraction.
func TestNavPrior(t *testing.T) {
	const start = "http://s/"
	nav := NavOf(start, Links([]string{"http://s/about", "http://s/news/", "http://s/sport/", "http://s/a/1"}))
	listing := []string{start, "http://s/about", "http://s/news/", "http://s/a/7", "http://s/a/8", "http://s/a/9", "http://s/a/10", "http://s/news/?page=2"}
	tests := []struct {
		name  string
		nav   Nav
		links []string
		want  time.Duration // of a 60-minute window
	}{
		{"no navigation known", Nav{}, listing, time.Hour},
		{"unreadable navigation", NavOf(start, "not base64!"), listing, time.Hour},
		{"no links", nav, []string{}, time.Hour},
		{"navigation only", nav, []string{start, "http://s/about", "http://s/news/", "http://s/sport/"}, time.Hour},
		{"an article: navigation and its section page", nav, []string{start, "http://s/about", "http://s/news/", "http://s/sport/", "http://s/news/?page=3"}, 50 * time.Minute},
		{"a listing: 3 navigation links of 8", nav, listing, time.Hour * 4 / 9},
		{"repeats count once", nav, append(listing, listing...), time.Hour * 4 / 9},
		{"a listing of another site's pages", nav, []string{"http://t/1", "http://t/2", "http://t/3"}, 15 * time.Minute},
	}
	for _, tt := range tests {
		if got, want := tt.nav.Prior(time.Hour, tt.links), tt.want; got < want-time.Second || got > want+time.Second {
			t.Errorf("%s: prior %v, want %v", tt.name, got, want)
		}
		if got, want := tt.nav.PriorOf(time.Hour, Links(tt.links)), tt.nav.Prior(time.Hour, tt.links); got != want {
			t.Errorf("%s: prior of the encoded links %v, want %v as of the links", tt.name, got, want)
		}
	}
	for _, links := range []string{"", "not base64!", "AAAA"} {
		if got := nav.PriorOf(time.Hour, links); got != time.Hour {
			t.Errorf("prior of links %q: %v, want the window", links, got)
		}
	}
	if (Nav{}).Known() || !nav.Known() {
		t.Error("Known: want false for the zero Nav, true for a start page's links")
	}
}
