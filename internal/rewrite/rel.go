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
	from := strings.Split(fromFile, "/")
	from = from[:len(from)-1] // directories
	to := strings.Split(toFile, "/")
	n := 0
	for n < len(from) && n < len(to)-1 && from[n] == to[n] {
		n++
	}
	var b strings.Builder
	for range len(from) - n {
		b.WriteString("../")
	}
	for i, seg := range to[n:] {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(escape(seg, "\"#%<>?\\^`{|}"))
	}
	ref := b.String()
	firstSeg, _, _ := strings.Cut(ref, "/")
	if ref == "" || ref[0] == '/' || strings.Contains(firstSeg, ":") {
		ref = "./" + ref
	}
	return ref
}
