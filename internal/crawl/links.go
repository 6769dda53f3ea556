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
// name leads to it, page.go leads), except a link the page does not follow
// whose file is not there (notFollowed); any other link becomes absolute,
// so it still reaches the site from a page opened from disk.
func (e *Engine) target(from, file string) rewrite.Target {
	fromIn := e.scope.has(from)
	return func(abs string, kind extract.Kind) (string, bool) {
		if kind == extract.Action {
			return abs, true // a form is sent to the site, never mirrored
		}
		to, ok := e.linkFile(abs, kind, fromIn)
		if !ok {
			return abs, true
		}
		return rewrite.Rel(file, to), true
	}
}

// linkFile returns the file of the mirror that the link abs of kind on a
// page (in scope if fromIn) leads to, or false if the spider does not
// mirror it: not followed (judgeLink), or forbidden by its host's
// robots.txt as last read (a host whose robots.txt is not read yet, or
// was unreachable, is taken to allow it). Which file that is: where its
// copy is, if this spider knows (linkFiles.copies), else as
// internal/linkname guesses; linkFiles remembers the guess, with the
// robots rules it was made under.
func (e *Engine) linkFile(abs string, kind extract.Kind, fromIn bool) (string, bool) {
	k := linkKey{abs, kind, fromIn}
	rules := e.linkRobots(abs) // the host's: Strip keeps the host
	f, gen, ok := e.links.get(k)
	if !ok || f.robots != rules {
		f = e.decideLink(abs, kind, fromIn, rules)
		e.links.put(k, f, gen)
	}
	if f.ok {
		if file, ok := e.links.copyOf(f.url); ok {
			return file, true // where its copy is, whatever was guessed
		}
	}
	return f.file, f.ok
}

// judgeLink returns what is decided of the link abs of kind on a page (in
// scope if fromIn): its URL as the crawl takes it and why it is not
// followed, if it is not (linkFile.why). The rewriting of the page into
// the mirror (linkFile) decided most links already: linkFiles remembers
// the decision, and a decision stays true while linkFiles keeps it (the
// hosts in scope reset it; the defences never take back a link they took
// and never let one through they cut, traps.judge), whatever robots.txt
// says since, which only decides the file.
func (e *Engine) judgeLink(abs string, kind extract.Kind, fromIn bool) judgedLink {
	k := linkKey{abs, kind, fromIn}
	f, gen, ok := e.links.get(k)
	if !ok {
		f = e.decideLink(abs, kind, fromIn, e.linkRobots(abs))
		e.links.put(k, f, gen)
	}
	return judgedLink{f.url, f.why, true}
}

// judgedLink is what is decided of a link (linkFile's url and why), or,
// if not decided, its URL as the crawl takes it only.
type judgedLink struct {
	url, why string
	decided  bool
}

// judgedLinks returns, for each of the links of a page (in scope if
// fromIn), in order, what linkFiles remembers of it: the rewriting of the
// page decided most (linkFile), and this decides none, so that what
// follows decides, and what the defences count, is what it asks for.
func (e *Engine) judgedLinks(links []extract.Link, fromIn bool) []judgedLink {
	out := make([]judgedLink, len(links))
	for i, l := range links {
		if f, _, ok := e.links.get(linkKey{l.URL, l.Kind, fromIn}); ok {
			out[i] = judgedLink{f.url, f.why, true}
		} else {
			out[i] = judgedLink{url: e.follow.traps.cfg.Strip(l.URL)}
		}
	}
	return out
}

// decideLink decides the link abs of kind on a page (in scope if fromIn)
// under its host's robots.txt rules: the one place where whether a link
// is followed (minus the page's nofollow, the level limit and the budget,
// follows) and which file it leads to are decided.
func (e *Engine) decideLink(abs string, kind extract.Kind, fromIn bool, rules *robots.Rules) linkFile {
	u := e.follow.traps.cfg.Strip(abs) // the URL as follows takes it
	f := linkFile{robots: rules, url: u, why: e.mirrors(fromIn, u, kind)}
	if f.why == "" && (rules == nil || rules.DisallowsAll() || rules.Allowed(u)) {
		to, err := linkname.File(e.cfg.Layout, u, kind)
		f.file, f.ok = to, err == nil
	}
	return f
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
