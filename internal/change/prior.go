package change

import (
	"time"
)

// A page visited once has no history to tell how often it changes, yet its
// links already tell what kind of page it is. Every page of a site carries
// the site's navigation (the links its start page has too); an article
// adds few links of its own, a listing (a section index, an archive page,
// a forum's topic list, a "recent" page) many: one for each page it lists.
// A listing changes whenever one of its pages comes or goes, so it is
// worth a second look sooner than an article.

// Nav is a site's navigation: the links of its start page, and the start
// page itself. The zero Nav knows no navigation.
type Nav struct {
	links map[uint64]bool
}

// NavOf returns the navigation of the site whose start page is start, from
// the start page's links as Links encoded them; the zero Nav if links is
// empty or unreadable.
func NavOf(start, links string) Nav {
	hs := hashes(links)
	if len(hs) == 0 {
		return Nav{}
	}
	n := Nav{links: make(map[uint64]bool, len(hs)+1)}
	for _, h := range hs {
		n.links[h] = true
	}
	n.links[hashOf(start)] = true
	return n
}

// Known reports whether n knows the site's navigation.
func (n Nav) Known() bool { return len(n.links) > 0 }

// Prior returns the mean time between changes presumed for a page with no
// history whose links (to other pages, as Links takes them) are urls, on a
// site with navigation n, where a page with no links of its own is
// presumed to change once per window: window times the share of its links
// that are navigation, counting the page's own place in it (1 + nav) /
// (1 + all). An article linking its section besides the navigation keeps
// nearly the window; a listing whose links are two thirds its own, a
// third of it. Without known navigation or links it is the window.
func (n Nav) Prior(window time.Duration, urls []string) time.Duration {
	if !n.Known() {
		return window
	}
	_, hs := firsts(urls)
	return n.prior(window, hs)
}

// PriorOf is Prior for the links a page had at a visit, as Links encoded
// them: the window if links is empty or unreadable.
func (n Nav) PriorOf(window time.Duration, links string) time.Duration {
	hs := hashes(links)
	if !n.Known() || len(hs) == 0 {
		return window
	}
	return n.prior(window, hs)
}

// prior is Prior for the hashes of a page's distinct links.
func (n Nav) prior(window time.Duration, hs []uint64) time.Duration {
	nav := 0
	for _, h := range hs {
		if n.links[h] {
			nav++
		}
	}
	return time.Duration(float64(window) * float64(1+nav) / float64(1+len(hs)))
}
