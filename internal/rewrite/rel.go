package rewrite

import "strings"

// Rel returns the reference that leads from the mirror file fromFile to the
// mirror file toFile, both slash-separated paths relative to the mirror root
// as mirror.Path makes them (no empty, "." or ".." segments), escaped for
// the href of a page opened from disk (file://) or served by any web server.
//
// In each segment '%' becomes %25, '?' %3F, '#' %23 and space %20, as do
// the other bytes a browser would not take literally in a path: controls,
// non-ASCII (as their UTF-8 bytes), '"', '<', '>', '\\' (a '/' in file:
// URLs), '^', '`', '{', '|' and '}'. A first segment holding ':' gets a "./"
// prefix so that it cannot read as a scheme.
//
//	Rel("h/a/b.html", "h/a/c.html")                 == "c.html"
//	Rel("h/a/b.html", "h/index.html")               == "../index.html"
//	Rel("h/x.html", "g:81/y.html")                  == "../g:81/y.html"
//	Rel("h/index.html", "h/index.html?page=2.html") == "index.html%3Fpage=2.html"
func Rel(fromFile, toFile string) string {
	// The directories fromFile and toFile share, segment by segment.
	common := 0
	for i := 0; i < len(fromFile) && i < len(toFile) && fromFile[i] == toFile[i]; i++ {
		if fromFile[i] == '/' {
			common = i + 1
		}
	}
	var b strings.Builder
	b.Grow(len(toFile) - common + 16)
	for range strings.Count(fromFile[common:], "/") {
		b.WriteString("../")
	}
	rest := toFile[common:]
	for i := 0; ; i++ {
		seg, more, found := strings.Cut(rest, "/")
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(escape(seg, "\"#%<>?\\^`{|}"))
		if !found {
			break
		}
		rest = more
	}
	ref := b.String()
	firstSeg, _, _ := strings.Cut(ref, "/")
	if ref == "" || ref[0] == '/' || strings.Contains(firstSeg, ":") {
		ref = "./" + ref
	}
	return ref
}
