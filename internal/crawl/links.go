package crawl

import (
	"mime"
	"path"
	"strings"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/rewrite"
)

// target returns how links on the page from, saved at file, are rewritten: a
// link the spider mirrors (mirrors) points, relatively, at the file its URL
// maps to in the mirror, whether or not that file exists yet (it appears when the page is
// fetched); any other link becomes absolute, so it still reaches the site
// from a page opened from disk.
func (e *Engine) target(from, file string) rewrite.Target {
	fromIn := e.inScope(from)
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
// mirror it.
func (e *Engine) linkFile(abs string, kind extract.Kind, fromIn bool) (string, bool) {
	k := linkKey{abs, kind, fromIn}
	f, gen, ok := e.links.get(k)
	if ok {
		return f.file, f.ok
	}
	if e.mirrors(fromIn, abs, kind) {
		to, err := e.cfg.Layout.Path(abs, guessType(abs, kind))
		f = linkFile{file: to, ok: err == nil}
	}
	e.links.put(k, f, gen)
	return f.file, f.ok
}

// guessType guesses the media type a link's target will be served with,
// which decides its file name in the mirror (".html" is added to pages).
// It goes by the extension, and for names without a telling one by the
// link's kind: style sheets are CSS, pages and frames HTML, other
// requisites keep their name.
func guessType(u string, kind extract.Kind) string {
	p := u
	if i := strings.IndexAny(p, "?"); i >= 0 {
		p = p[:i]
	}
	ext := strings.ToLower(path.Ext(p[strings.LastIndexByte(p, '/')+1:]))
	switch ext {
	case ".html", ".htm", ".xhtml", ".shtml":
		return "text/html"
	case ".css":
		return "text/css"
	}
	if kind == extract.Style {
		return "text/css" // a style sheet, whatever its name
	}
	switch ext {
	case "", ".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".cfm":
		if kind == extract.Requisite {
			return ""
		}
		return "text/html"
	}
	if t := mime.TypeByExtension(ext); t != "" && !strings.HasPrefix(t, "text/html") {
		return "" // a known non-HTML type keeps its name
	}
	if kind == extract.Requisite {
		return ""
	}
	return "text/html"
}
