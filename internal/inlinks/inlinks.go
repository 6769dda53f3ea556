// Package inlinks remembers which of the pages a spider parsed link to
// which pages, so that a page found gone, or dropped from a listing, names
// the other pages that changed with it.
//
// A site that deletes a page changes every page that listed it: a forum's
// index and the "recent" list drop the topic, a blog's archive month and
// its category page drop the post, a wiki's pages show the link red. Those
// pages are found changed only by visiting them; the index says which to
// visit as soon as one sign of the deletion is seen: the page itself
// answers 404, or a listing lost the link and gained none (a listing that
// scrolls gains the link that pushed the old one off). A page that lost
// most of its links at once (an error page served with 200, a login wall)
// says nothing of the pages it lost: it names none.
//
// The index is kept in memory and bounded: it holds at most MaxLinks links
// of a page, MaxEdges links and MaxPages pages in all, forgetting pages at
// random beyond that (a spider that restarts learns them again as it
// fetches). A page linked from more than MaxLinkers pages (the site's
// navigation, a popular page) names none until no page links it: its loss
// would send a crowd of visits, and those pages are found changed by their
// own revisits; and one parse names at most MaxLinkers pages.
package inlinks

import (
	"hash/maphash"
	"sync"
)

const (
	// MaxLinks bounds the links of a page kept: a listing lists at its
	// top.
	MaxLinks = 256
	// MaxEdges and MaxPages bound the links and the pages kept: 31 MB at
	// most as measured (13,000 listings of 20 entries, or 1,000 pages of
	// 256 links, each link to a page of its own).
	MaxEdges = 1 << 18
	MaxPages = 1 << 14
	// MaxLinkers bounds the pages named as linking one page.
	MaxLinkers = 64
)

// A Linker is a page that linked a page at its latest parse, at the
// level it had then.
type Linker struct {
	URL   string
	Level int
}

// Index is the pages' links and their reverse. Its methods may be called
// from several goroutines.
type Index struct {
	mu    sync.Mutex
	seed  maphash.Seed
	pages map[string]page
	in    map[uint64]*linkers
	edges int // the links of pages, in all
}

type page struct {
	level int
	links []uint64 // hashes, distinct
}

// linkers are the pages linking one page: how many, and their URLs unless
// there were ever more than MaxLinkers since the count was last zero.
type linkers struct {
	n    int
	over bool
	urls []string // nil when over
}

// New returns an empty index.
func New() *Index {
	return &Index{seed: maphash.MakeSeed(), pages: map[string]page{}, in: map[uint64]*linkers{}}
}

// Parsed records the links of the page at url, at level, parsed just now.
// If the page lost links and gained none since its previous parse, it
// returns the other pages that linked what it lost.
func (x *Index) Parsed(url string, level int, links []string) (linkers []Linker) {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := x.distinct(links)
	prev, had := x.pages[url]
	x.remove(url)
	if lost := lostFew(prev.links, now); had && lost != nil {
		seen := map[string]bool{url: true}
		for _, h := range lost {
			linkers = x.linkersOf(h, seen, linkers)
		}
		linkers = linkers[:min(len(linkers), MaxLinkers)]
	}
	if len(now) > 0 { // a page without links names nobody, now or later
		x.add(url, page{level: level, links: now})
	}
	return linkers
}

// Gone returns the pages that linked the page at url at their latest
// parse, the page itself found gone, and forgets the page's own links.
func (x *Index) Gone(url string) []Linker {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.remove(url)
	return x.linkersOf(x.hash(url), map[string]bool{url: true}, nil)
}

// linkersOf appends to out the pages linking the page hashed h that are
// not in seen, and adds them to seen.
func (x *Index) linkersOf(h uint64, seen map[string]bool, out []Linker) []Linker {
	l := x.in[h]
	if l == nil {
		return out
	}
	for _, u := range l.urls {
		if !seen[u] {
			seen[u] = true
			out = append(out, Linker{URL: u, Level: x.pages[u].level})
		}
	}
	return out
}

// lostFew returns the links of prev (distinct) that now (distinct) lacks,
// if they are at most a quarter of prev (one of up to seven) and now holds
// nothing prev did not; else nil.
func lostFew(prev, now []uint64) []uint64 {
	if n := len(prev) - len(now); n < 1 || n > max(1, len(prev)/4) {
		return nil
	}
	kept := make(map[uint64]bool, len(now))
	for _, h := range now {
		kept[h] = true
	}
	var lost []uint64
	for _, h := range prev {
		if !kept[h] {
			lost = append(lost, h)
		}
	}
	if len(lost) != len(prev)-len(now) {
		return nil // now gained links prev did not have
	}
	return lost
}

// distinct returns the hashes of the first MaxLinks distinct links.
func (x *Index) distinct(links []string) []uint64 {
	seen := make(map[uint64]bool, min(len(links), MaxLinks))
	var hs []uint64
	for _, u := range links {
		h := x.hash(u)
		if seen[h] {
			continue
		}
		seen[h] = true
		if hs = append(hs, h); len(hs) == MaxLinks {
			break
		}
	}
	return hs
}

func (x *Index) hash(u string) uint64 { return maphash.String(x.seed, u) }

// add records p as the page at url, which has none, making room first.
func (x *Index) add(url string, p page) {
	for victim := range x.pages {
		if x.edges+len(p.links) <= MaxEdges && len(x.pages) < MaxPages {
			break
		}
		x.remove(victim) // map order: at random
	}
	x.pages[url] = p
	x.edges += len(p.links)
	for _, h := range p.links {
		l := x.in[h]
		if l == nil {
			l = &linkers{}
			x.in[h] = l
		}
		l.n++
		l.over = l.over || l.n > MaxLinkers
		if l.over {
			l.urls = nil
		} else {
			l.urls = append(l.urls, url)
		}
	}
}

// remove forgets the links of the page at url, if any.
func (x *Index) remove(url string) {
	p, ok := x.pages[url]
	if !ok {
		return
	}
	delete(x.pages, url)
	x.edges -= len(p.links)
	for _, h := range p.links {
		l := x.in[h]
		if l.n--; l.n == 0 {
			delete(x.in, h)
			continue
		}
		for i, from := range l.urls {
			if from == url {
				l.urls = append(l.urls[:i], l.urls[i+1:]...)
				break
			}
		}
	}
}
