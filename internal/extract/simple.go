package extract

import (
	"bytes"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// simpleTags are the elements whose start tags the HTML tree builder keeps,
// as elements of the same name, attributes and document order, in whatever
// context they appear (formatting elements it clones repeat an earlier link,
// which deduplication drops). Tables (foster parenting), forms (a nested one
// is dropped), select (most tags in it are dropped), frames (dropped in a
// body), template, noscript, a <body>, <head> or <html> with a link or a
// style attribute (the tree merges the attributes of every <body> into the
// first, even an implied one), foreign content (svg, math: namespaced
// attributes), image (renamed img) and anything unknown are not here: a page
// holding one is parsed into a tree.
var simpleTags = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range []string{
		"html", "head", "body", "title", "meta", "link", "base", "script", // not style: its CSS text is read by tree
		"a", "abbr", "b", "i", "u", "s", "em", "strong", "small", "big", "code", "pre", "kbd", "samp",
		"var", "sub", "sup", "mark", "q", "cite", "dfn", "time", "data", "bdi", "bdo", "br", "wbr",
		"hr", "p", "div", "span", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
		"header", "footer", "nav", "main", "section", "article", "aside", "figure", "figcaption",
		"blockquote", "address", "details", "summary", "img", "picture", "source", "video", "audio",
		"track", "iframe", "area", "map", "label", "center", "font",
	} {
		m[t] = true
	}
	return m
}()

// A Collector finds the links of a page fed to it one start tag at a time,
// for a caller that tokenizes the page itself: package rewrite, which
// rewrites the links in the same pass, and simple below. As long as every
// tag is one of simpleTags (Simple), the tokenizer sees what the tree
// builder would, and Links are what HTML returns for the page.
type Collector struct {
	c        collector
	simple   bool
	resolved map[string]string // Resolve's answers, "" for a reference it drops
}

// NewCollector returns a Collector for a page whose document base URL is
// docBase (canonical: what the page's first <base href> resolves to, or
// else the page's URL), in the encoding named enc (as
// charset.DetermineEncoding names it), which decides how non-ASCII in a
// query is encoded.
func NewCollector(docBase, enc string) *Collector {
	c := &Collector{
		c:      collector{base: docBase, query: htmlurl.NewQueryEncoder(enc), seen: map[string]bool{}},
		simple: true,
	}
	c.c.resolve = c.Resolve
	return c
}

// Tag takes the page's next start tag: its lower-case name, and the
// attributes the tokenizer reads in it (all, in order, duplicates
// included) if some htmlurl rule is for the name or the tag may have a
// style attribute (htmlurl.MayHaveStyle); attrs may be nil for other tags.
// <base> adds nothing: docBase says what it does.
func (c *Collector) Tag(name string, attrs []html.Attribute) {
	if !c.simple {
		return
	}
	if !simpleTags[name] || (name == "body" || name == "html" || name == "head") && mayMove(name, attrs) {
		c.simple = false
		return
	}
	if name != "base" && len(attrs) > 0 {
		c.c.element(name, attrs)
	}
}

// Resolve returns the canonical absolute URL that the reference ref (an
// attribute value as the tokenizer reads it) on the page leads to, as the
// links of Links are resolved, or false for one they drop (not http or
// https, malformed). A caller that rewrites the links it feeds Tag asks
// here rather than resolving them again.
func (c *Collector) Resolve(ref string) (string, bool) {
	if u, ok := c.resolved[ref]; ok {
		return u, u != ""
	}
	u, err := urlkey.Resolve(c.c.base, c.c.query.Encode(ref))
	if err != nil {
		u = ""
	}
	if c.resolved == nil {
		c.resolved = map[string]string{}
	}
	c.resolved[ref] = u
	return u, u != ""
}

// Abandon gives the page up: the caller could not read a tag as the
// tokenizer does. Simple reports false from then on.
func (c *Collector) Abandon() { c.simple = false }

// Simple reports whether every tag so far was one of simpleTags: only then
// are Links those HTML finds.
func (c *Collector) Simple() bool { return c.simple }

// Links returns the links found so far, at most MaxLinks.
func (c *Collector) Links() []Link { return c.c.result() }

// mayMove reports whether the tree builder may move the links of a <body>,
// <head> or <html> tag with attrs: it merges the attributes of every such
// tag into the first of its name, which may be implied earlier.
func mayMove(name string, attrs []html.Attribute) bool {
	if _, ok := attr(attrs, "style"); ok {
		return true
	}
	for _, r := range htmlurl.RulesFor(name) {
		if _, ok := attr(attrs, r.Attr); ok {
			return true
		}
	}
	return false
}

// simple collects the links of a page text (decoded to UTF-8) made only of
// simpleTags with the tokenizer, which gives what the tree would without
// building one. ok is false at the first other tag, and the links found
// until then are not what HTML returns.
func simple(docURL, enc string, text []byte) (links []Link, ok bool) {
	base := docURL
	if htmlurl.MayHoldTag(text, "base") {
		base = findBase(docURL, enc, text)
	}
	c := NewCollector(base, enc)
	z := html.NewTokenizer(bytes.NewReader(text))
	var attrs []html.Attribute
	for c.simple && len(c.c.links) < MaxLinks {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		raw := z.Raw() // before TagName, which lower-cases the name in place
		name, more := z.TagName()
		attrs = attrs[:0]
		if more && (htmlurl.RulesFor(string(name)) != nil || htmlurl.MayHaveStyle(raw)) {
			attrs = tagAttrs(z, attrs)
		}
		c.Tag(string(name), attrs)
	}
	return c.Links(), c.Simple()
}

// tagAttrs appends the attributes of the current start tag of z to attrs.
func tagAttrs(z *html.Tokenizer, attrs []html.Attribute) []html.Attribute {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		attrs = append(attrs, html.Attribute{Key: string(k), Val: string(v)})
	}
	return attrs
}

// findBase returns the document base URL of a page text: what the href of
// its first <base href> resolves to, or docURL.
func findBase(docURL, enc string, text []byte) string {
	z := html.NewTokenizer(bytes.NewReader(text))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return docURL
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		if string(name) != "base" || !more {
			continue
		}
		if href, ok := attr(tagAttrs(z, nil), "href"); ok {
			c := collector{base: docURL, query: htmlurl.NewQueryEncoder(enc)}
			c.setBase(href)
			return c.base
		}
	}
}
