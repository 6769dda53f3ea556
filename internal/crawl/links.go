package crawl

import (
	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/internal/rewrite"
)

// target returns how links on the page from, saved at file, are rewritten: a
// link the spider mirrors (mirrors) points, relatively, at the file its URL
// maps to in the mirror, whether or not that file exists yet (it appears when the page is
// fetched); any other link becomes absolute, so it still reaches the site
// from a page opened from disk.
func (e *Engine) target(from, file string) rewrite.Target {
	fromIn := e.scope.has(from)
	return func(abs string, kind extract.Kind) (string, bool) {
		to, ok := e.linkFile(abs, kind, fromIn)
		if !ok {
			return abs, true
		}
		return rewrite.Rel(file, to), true
	}
}

// linkFile returns the file of the mirror that the link abs of kind on a
// page (in scope if fromIn) leads to, or false if the spider does not
// mirror it. Which file that is, internal/linkname decides; linkFiles
// remembers it.
func (e *Engine) linkFile(abs string, kind extract.Kind, fromIn bool) (string, bool) {
	k := linkKey{abs, kind, fromIn}
	f, gen, ok := e.links.get(k)
	if ok {
		return f.file, f.ok
	}
	if u := e.traps.cfg.Strip(abs); e.mirrors(fromIn, u, kind) { // the URL as follows takes it
		to, err := linkname.File(e.cfg.Layout, u, kind)
		f = linkFile{file: to, ok: err == nil}
	}
	e.links.put(k, f, gen)
	return f.file, f.ok
}
