// Package extract finds the links in a page.
//
// HTML returns every URL a page refers to, absolute and canonical
// (urlkey), deduplicated, in document order, each tagged with the Kind of
// reference: a page to crawl, a frame, or a requisite the page needs to
// display. It is pure: no network, no policy. Which links to follow (same
// host, depth, traps, robots) is decided by the caller.
//
// Bytes are never assumed to be UTF-8. The encoding is determined as a
// browser does (BOM, then the Content-Type charset, then a <meta> prescan of
// the first 1024 bytes, then a UTF-8 check with windows-1252 as fallback) and
// the page is decoded before parsing. As in a browser, non-ASCII characters in
// a link's path are percent-encoded as UTF-8, and in its query in the page's
// encoding.
//
// Which attributes hold URLs, of what Kind, and where in a srcset or a meta
// refresh they are, is package htmlurl's knowledge, which package rewrite
// shares so that it changes exactly the links found here, and the targets
// of forms, which are not links to crawl and are not returned (Action).
//
// Input and output are bounded: at most MaxInput bytes of a page are read and
// at most MaxLinks links are returned. HTML is safe for concurrent use.
package extract

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"

	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// Limits on what HTML handles. A page longer than MaxInput is cut there and
// its tail ignored; links beyond the first MaxLinks distinct ones are ignored.
const (
	MaxInput = 32 << 20
	MaxLinks = 10000
)

// Kind says how a page refers to a URL: htmlurl's Kind, named here too so
// that callers of HTML need not import htmlurl.
type Kind = htmlurl.Kind

// The kinds of reference, htmlurl's: a page to crawl, a document shown in
// a frame, a resource the page loads to display.
const (
	Page      = htmlurl.Page
	Frame     = htmlurl.Frame
	Requisite = htmlurl.Requisite
	Style     = htmlurl.Style
	Action    = htmlurl.Action // never among a page's links (HTML): a form's target is not crawled
)

// A Link is one URL found in a page.
type Link struct {
	URL  string // canonical absolute http or https URL
	Kind Kind
	Tag  string // lower-case element name, e.g. "img"
	Attr string // attribute the URL came from, e.g. "srcset"
	// Nofollow says the page asks robots not to follow the link: every
	// occurrence of it is in an <a> or <area> with rel="nofollow", or the
	// page has <meta name="robots" content="nofollow"> (or "none"). What
	// to do about it is the caller's policy.
	Nofollow bool
}

// HTML parses an HTML document served at base (a URL, canonicalised with
// urlkey.Parse) with Content-Type header value contentType (may be "") and
// returns its links: resolved against the document's base URL (<base href>
// if present, else base), deduplicated with the first occurrence winning, in
// document order. References that do not resolve to an http or https URL
// (mailto:, javascript:, data:, tel:, malformed) are dropped. A fragment-only
// reference ("#top") resolves to the page itself. Links in <noscript> are
// found (the page is parsed with scripting off); links in script text are not.
// A page the parser rejects (nested deeper than 512 elements) is scanned tag
// by tag instead, with the same rules. So is, first, every page made only of
// elements the tree builder never moves, drops or renames (simple.go): the
// tokenizer alone then finds what the tree would, at a fraction of the cost.
//
// The error is non-nil only if base is not a valid http or https URL.
func HTML(base string, contentType string, body []byte) ([]Link, error) {
	docURL, err := urlkey.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("extract: base url: %w", err)
	}
	if len(body) > MaxInput {
		body = body[:MaxInput]
	}
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	text := decode(body, enc, name)
	if links, ok := simple(docURL, name, text); ok {
		return links, nil
	}
	c := &collector{base: docURL, query: htmlurl.NewQueryEncoder(name), seen: map[string]bool{}}
	root, err := html.ParseWithOptions(bytes.NewReader(text), html.ParseOptionEnableScripting(false))
	if err != nil {
		// The parser refuses pages nested deeper than 512 open elements
		// (unclosed <div>s, <font>s): fall back to the tokenizer.
		c.tokens(text)
		return c.result(), nil
	}
	c.tree(root)
	return c.result(), nil
}

// decode returns body, in the encoding enc named name, decoded to UTF-8:
// invalid bytes become U+FFFD, and a decoder error ends the text as it
// would end a parse. Valid UTF-8 is body itself.
func decode(body []byte, enc encoding.Encoding, name string) []byte {
	if enc == nil || enc == encoding.Nop || name == "utf-8" && utf8.Valid(body) {
		return body
	}
	text, _, _ := transform.Bytes(enc.NewDecoder(), body)
	return text
}

// tree collects links from a parsed document with goquery: the first
// <base href> sets the base, then every element some htmlurl rule may
// apply to, or that carries CSS, gives its links, in document order. The
// selectors are the same for every page, so they are compiled once
// (element.go), not per page.
func (c *collector) tree(root *html.Node) []Link {
	doc := goquery.NewDocumentFromNode(root)
	if href, ok := doc.FindMatcher(baseMatcher).Attr("href"); ok {
		c.setBase(href)
	}
	doc.FindMatcher(matcher).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		n := s.Get(0)
		c.element(n.Data, n.Attr)
		if n.Data == "style" && n.FirstChild != nil && n.FirstChild.Type == html.TextNode {
			c.css("style", []byte(n.FirstChild.Data))
		}
		return len(c.links) < MaxLinks
	})
	return c.links
}

// tokens collects links from the start tags of a document the parser
// rejected: one pass for the first <base href>, which applies to every link
// as in a parsed document, then one for the links.
func (c *collector) tokens(text []byte) []Link {
	z := html.NewTokenizer(bytes.NewReader(text))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		t := z.Token()
		if t.Data == "noscript" {
			z.NextIsNotRawText()
		}
		if href, ok := attr(t.Attr, "href"); ok && t.Data == "base" {
			c.setBase(href)
			break
		}
	}
	z = html.NewTokenizer(bytes.NewReader(text))
	for len(c.links) < MaxLinks {
		switch z.Next() {
		case html.ErrorToken:
			return c.links
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			if t.Data == "noscript" {
				z.NextIsNotRawText() // scripting is off: its content is markup
			}
			c.element(t.Data, t.Attr)
			if t.Data == "style" && z.Next() == html.TextToken {
				c.css("style", z.Text())
			}
		}
	}
	return c.links
}
