package crawl

import (
	"strings"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/robots"
)

// target returns how links on the page from, saved at file, are rewritten: a
// link the spider mirrors (mirrors) points, relatively, at the file its URL
// maps to in the mirror, whether or not that file exists yet (it appears when the page is
// fetched; should its type not be the one guessed, a file at the guessed
// name leads to it, page.go leads); any other link becomes absolute, so it
// still reaches the site from a page opened from disk.
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
// mirror it: out of scope, filtered by the defences (mirrors), or
// forbidden by its host's robots.txt as last read (a host whose
// robots.txt is not read yet, or was unreachable, is taken to allow it). Which file that is: where its copy is, if this
// spider knows (linkFiles.copies), else as internal/linkname guesses;
// linkFiles remembers the guess, with the robots rules it was made under.
func (e *Engine) linkFile(abs string, kind extract.Kind, fromIn bool) (string, bool) {
	k := linkKey{abs, kind, fromIn}
	rules := e.linkRobots(abs) // the host's: Strip keeps the host
	f, gen, ok := e.links.get(k)
	if !ok || f.robots != rules {
		u := e.follow.traps.cfg.Strip(abs) // the URL as follows takes it
		f = linkFile{robots: rules, url: u}
		if e.mirrors(fromIn, u, kind) && (rules == nil || rules.DisallowsAll() || rules.Allowed(u)) {
			to, err := linkname.File(e.cfg.Layout, u, kind)
			f.file, f.ok = to, err == nil
		}
		e.links.put(k, f, gen)
	}
	if f.ok {
		if file, ok := e.links.copyOf(f.url); ok {
			return file, true // where its copy is, whatever was guessed
		}
	}
	return f.file, f.ok
}

// linkRobots returns the robots.txt rules known for the host of the URL u,
// or nil when robots.txt is ignored or not read yet.
func (e *Engine) linkRobots(u string) *robots.Rules {
	if e.cfg.IgnoreRobots {
		return nil
	}
	scheme, _, _ := strings.Cut(u, "://")
	r, _ := e.robotsCache().Cached(scheme + "://" + hostOf(u))
	return r
}
