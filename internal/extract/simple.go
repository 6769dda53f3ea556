package extract

import (
	"io"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/htmlurl"
)

// simpleTags are the elements whose start tags the HTML tree builder keeps,
// as elements of the same name, attributes and document order, in whatever
// context they appear (formatting elements it clones repeat an earlier link,
// which deduplication drops). Tables (foster parenting), forms (a nested one
// is dropped), select (most tags in it are dropped), frames (dropped in a
// body), template, noscript, a <body> with a link (background: the
// tree merges the attributes of every <body> into the first, even an
// implied one), foreign content (svg, math: namespaced
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

// simple collects the links of a page made only of simpleTags with the
// tokenizer, which gives what the tree would at a third of the cost (a
// test forum page: 60 -> 20 us). ok is false, and nothing is collected, at
// the first other tag.
func (c *collector) simple(r io.Reader) (links []Link, ok bool) {
	z := html.NewTokenizer(r)
	var tags []html.Token
	base := -1
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF; a decoder error ends the page as it ends the parse
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		if !simpleTags[string(name)] {
			return nil, false
		}
		if string(name) != "base" && htmlurl.RulesFor(string(name)) == nil {
			continue
		}
		t := html.Token{Data: string(name)}
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			t.Attr = append(t.Attr, html.Attribute{Key: string(k), Val: string(v)})
		}
		if (t.Data == "body" || t.Data == "html" || t.Data == "head") && hasRuleAttr(t) {
			// The tree merges the attributes of a second <body> into the
			// first, which may be implied earlier: its links may move.
			return nil, false
		}
		if t.Data == "base" {
			if _, has := attr(t.Attr, "href"); has && base < 0 {
				base = len(tags)
			}
		}
		tags = append(tags, t)
	}
	if base >= 0 {
		href, _ := attr(tags[base].Attr, "href")
		c.setBase(href)
	}
	for _, t := range tags {
		if len(c.links) >= MaxLinks {
			break
		}
		if t.Data != "base" {
			c.element(t.Data, t.Attr)
		}
	}
	return c.links, true
}

// hasRuleAttr reports whether t has an attribute some rule for its tag reads.
func hasRuleAttr(t html.Token) bool {
	for _, r := range htmlurl.RulesFor(t.Data) {
		if _, ok := attr(t.Attr, r.Attr); ok {
			return true
		}
	}
	return false
}
