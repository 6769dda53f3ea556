package crawl

import (
	"strings"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/robots"
)

// target returns how links on the page from, saved at file, are rewritten
// (pageTarget.target).
func (e *Engine) target(from, file string) rewrite.Target {
	return e.pageTarget(from, file).target
}

// pageTarget is the rewriting of the links of one page, from, saved at
// file. It keeps what was decided of each link, in the order asked, so
// that what is taken from the page asks those decisions again
// (judgedLinks) without looking each up in linkFiles. It lives as long
// as its page is stored, on the worker storing it.
type pageTarget struct {
	e      *Engine
	file   string
	fromIn bool // whether from is in scope
	asked  []askedLink
}

// askedLink is a link asked of a pageTarget, and what was decided of it.
type askedLink struct {
	abs  string
	kind extract.Kind
	f    linkFile
}

func (e *Engine) pageTarget(from, file string) *pageTarget {
	return &pageTarget{e: e, file: file, fromIn: e.scope.has(from)}
}

// target says what the link abs of kind becomes: a link the spider
// mirrors (linkFile) points, relatively, at the file its URL maps to in
// the mirror, whether or not that file exists yet (it appears when the
// page is fetched; should its type not be the one guessed, a file at the
// guessed name leads to it, page.go leads); any other link becomes
// absolute, so it still reaches the site from a page opened from disk.
func (t *pageTarget) target(abs string, kind extract.Kind) (string, bool) {
	f := t.e.linkFile(abs, kind, t.fromIn)
	t.asked = append(t.asked, askedLink{abs, kind, f})
	to, ok := t.e.fileOf(f)
	if !ok {
		return abs, true
	}
	return rewrite.Rel(t.file, to), true
}

// linkFile returns what is decided of the link abs of kind on a page (in
// scope if fromIn), with its file in the mirror (fileOf): ok false if the
// spider does not mirror it: not followed (judgeLink), or forbidden by its
// host's robots.txt as last read (a host whose robots.txt is not read
// yet, or was unreachable, is taken to allow it). linkFiles remembers it,
// with the robots rules it was decided under.
func (e *Engine) linkFile(abs string, kind extract.Kind, fromIn bool) linkFile {
	k := linkKey{abs, kind, fromIn}
	rules := e.linkRobots(abs) // the host's: Strip keeps the host
	f, gen, ok := e.links.get(k)
	if !ok || f.robots != rules {
		f = e.decideLink(abs, kind, fromIn, rules)
		f.gen = gen
		e.links.put(k, f, gen)
	}
	return f
}

// fileOf returns the file of the mirror that the link decided as f leads
// to, or false if the spider does not mirror it: where its copy is, if
// this spider knows (linkFiles.copies), else as internal/linkname guessed.
func (e *Engine) fileOf(f linkFile) (string, bool) {
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
func (e *Engine) judgeLink(abs string, kind extract.Kind, fromIn bool) linkFile {
	k := linkKey{abs, kind, fromIn}
	f, gen, ok := e.links.get(k)
	if !ok {
		f = e.decideLink(abs, kind, fromIn, e.linkRobots(abs))
		e.links.put(k, f, gen)
	}
	return f
}

// judgedLink is a link of a page as linkFiles remembers it (judgedLinks):
// its decision if decided, else its URL as the crawl takes it only.
type judgedLink struct {
	linkFile
	decided bool
}

// maxAskedAhead bounds how far judgedLinks looks ahead among the links
// asked of a pageTarget for the next of the page's links: those the
// extraction dropped as repeats lie between.
const maxAskedAhead = 64

// judgedLinks returns, for each of the links of a page (in scope if
// fromIn), in order, what was decided of it as the page was rewritten
// (t, if not nil: a link asked of it in the same order, from the same
// side of the scope, in the current generation), else what linkFiles
// remembers: this decides none,
// so that what follows decides, and what the defences count, is what it
// asks for.
func (e *Engine) judgedLinks(links []extract.Link, fromIn bool, t *pageTarget) []judgedLink {
	var asked []askedLink
	if t != nil && t.fromIn == fromIn {
		asked = t.asked
	}
	gen := e.links.gen.Load() // a decision of an earlier generation is decided again, as linkFiles.get says
	out := make([]judgedLink, len(links))
	next := 0 // the first link asked not matched yet
	for i, l := range links {
		if k := askedIndex(asked[next:min(next+maxAskedAhead, len(asked))], l); k >= 0 && asked[next+k].f.gen == gen {
			out[i] = judgedLink{asked[next+k].f, true}
			next += k + 1
			continue
		}
		f, _, ok := e.links.get(linkKey{l.URL, l.Kind, fromIn})
		if !ok {
			f = linkFile{url: e.follow.traps.cfg.Strip(l.URL)}
		}
		out[i] = judgedLink{f, ok}
	}
	return out
}

// askedIndex returns the index of the link l in asked, or -1.
func askedIndex(asked []askedLink, l extract.Link) int {
	for k := range asked {
		if asked[k].abs == l.URL && asked[k].kind == l.Kind {
			return k
		}
	}
	return -1
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
