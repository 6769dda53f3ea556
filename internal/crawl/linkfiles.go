package crawl

import (
	"sync"
	"sync/atomic"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/robots"
)

// maxLinkFiles bounds the link files a spider remembers; past it, the
// memory starts again empty (about 150 bytes an entry).
const maxLinkFiles = 1 << 15

// linkFiles remembers, for the links of the pages a spider rewrites, which
// file of the mirror each leads to: a page's links are mostly links that
// other pages had too (its neighbours, its index page, the site's menus),
// and deciding one again costs the scope rules, robots.txt, Layout.Path and guessType
// for every link of every page. What it remembers depends on the hosts in
// scope only, and is forgotten when they change (widenScope). Every worker
// asks for every link, so reads take no lock (sync.Map).
//
// It also remembers where the copies of the URLs this spider fetched or
// claimed are (copies): a link to such a URL leads straight to its copy,
// not to the name its extension made linkname guess (a file there leads
// on to the copy, page.go leads, but a browser may take it for another
// type). Filled by the group commit; scope changes do not touch it.
type linkFiles struct {
	m   sync.Map // linkKey → linkFile
	n   atomic.Int64
	gen atomic.Int64 // counts resets

	copies  sync.Map // canonical URL → file of its copy
	ncopies atomic.Int64
}

// linkKey is what decides a link's file: its canonical URL, its kind and
// whether the page it is on is in scope.
type linkKey struct {
	url    string
	kind   extract.Kind
	fromIn bool
}

// linkFile is what is decided of a link (decideLink): its URL, why it is
// not followed, and its file in the mirror, or ok false for a link the
// spider does not mirror (or whose URL has no file); gen is the generation
// it was decided in, robots the rules of its host then (a link is decided
// again when they are replaced).
type linkFile struct {
	url    string // the link's URL as follows takes it (trap.Config.Strip)
	why    string // why the scope rules or the defences refuse it; "" if not (mirrors)
	file   string
	ok     bool
	gen    int64
	robots *robots.Rules // the host's robots.txt rules it was decided under
}

// get returns what put remembered for k in this generation, or the
// generation to hand put for k.
func (c *linkFiles) get(k linkKey) (f linkFile, gen int64, ok bool) {
	gen = c.gen.Load()
	v, ok := c.m.Load(k)
	if !ok {
		return linkFile{}, gen, false
	}
	f = v.(linkFile)
	return f, gen, f.gen == gen
}

// put remembers f for k, decided in generation gen: should a reset have
// come since, f may have been decided with the hosts in scope before it,
// and get ignores it.
func (c *linkFiles) put(k linkKey, f linkFile, gen int64) {
	if c.n.Add(1) > maxLinkFiles {
		c.m.Clear()
		c.n.Store(1)
	}
	f.gen = gen
	c.m.Store(k, f)
}

// reset forgets everything.
func (c *linkFiles) reset() {
	c.gen.Add(1)
	c.m.Clear()
	c.n.Store(0)
}

// noteCopy remembers that the copy of u is at file.
func (c *linkFiles) noteCopy(u, file string) {
	if old, ok := c.copies.Load(u); ok && old.(string) == file {
		return
	}
	if c.ncopies.Add(1) > maxLinkFiles {
		c.copies.Clear()
		c.ncopies.Store(1)
	}
	c.copies.Store(u, file)
}

// forgetCopy forgets the copy of u.
func (c *linkFiles) forgetCopy(u string) { c.copies.Delete(u) }

// copyOf returns the file of u's copy, if remembered.
func (c *linkFiles) copyOf(u string) (string, bool) {
	v, ok := c.copies.Load(u)
	if !ok {
		return "", false
	}
	return v.(string), true
}
