// Package linkname decides which file of the mirror a link leads to before
// its target has been fetched: the media type the target will most likely
// be served with, and so its name under mirror.Layout (File); and, once it
// is fetched, which names links may have guessed for it that must lead to
// the file it was written to (Leads). It is pure.
package linkname

import (
	"mime"
	"path"
	"strings"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/mirror"
)

// File returns the name in the mirror, relative to its root, of the file
// that the canonical URL u, linked as kind, will be written to.
func File(l mirror.Layout, u string, kind extract.Kind) (string, error) {
	return l.Path(u, MediaType(u, kind))
}

// MediaType guesses the media type a link's target will be served with,
// which decides its file name in the mirror (".html" is added to pages,
// ".css" to style sheets). It goes by the extension, and for names without
// a telling one by the link's kind: style sheets are CSS, pages and frames
// HTML, other requisites keep their name.
func MediaType(u string, kind extract.Kind) string {
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

// Leads returns the files, other than file, that links to the canonical URL
// u may lead to: the names File gave links to u from pages written before u
// was fetched (or before its type changed), which must lead to file, the
// one u was written to. They are the name of a link from a page's
// <a href> or frame, and, unless file is a page, the name of a link for an
// image or script: a page is never shown as one. A style sheet's link
// is not among them, as a browser shows nothing of a style sheet that is
// not one. Each name is u's own under the layout (mirror.Path), so a file
// written there never takes another URL's name.
func Leads(l mirror.Layout, u, file string) []string {
	var leads []string
	page, err := File(l, u, extract.Page)
	if err == nil && page != file {
		leads = append(leads, page)
	}
	if IsPageName(file) {
		return leads
	}
	req, err := File(l, u, extract.Requisite)
	if err == nil && req != file && req != page {
		leads = append(leads, req)
	}
	return leads
}

// IsPageName reports whether a browser opening the file name from disk
// takes it for an HTML page: it ends in ".html" or ".htm", in any case.
func IsPageName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".html" || ext == ".htm"
}
