package extract

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// matcher matches every element some htmlurl rule may apply to, and those
// that carry CSS (css.go); compiled once, not per page.
var matcher = cascadia.MustCompile(func() string {
	var b strings.Builder
	for i, r := range htmlurl.Rules() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Tag + "[" + r.Attr + "]")
	}
	b.WriteString(", [style], style")
	return b.String()
}())

// baseMatcher matches a <base> that sets the document's base URL.
var baseMatcher = goquery.Single("base[href]")

type collector struct {
	base    string // document base URL, canonical
	query   *htmlurl.QueryEncoder
	seen    map[string]bool
	links   []Link
	resolve func(ref string) (string, bool) // if set, resolves a reference against base (Collector.Resolve)

	nofollow   bool            // <meta name="robots"> says nofollow: every link is
	nofollowed map[string]bool // links so far only seen with rel="nofollow"
}

// result returns the links found, each marked Nofollow if the page's
// <meta name="robots"> says so.
func (c *collector) result() []Link {
	if c.nofollow {
		for i := range c.links {
			c.links[i].Nofollow = true
		}
	}
	return c.links
}

// robotsNofollow reports whether a robots meta tag's content forbids
// following the page's links: "nofollow" or "none" among its
// comma-separated directives, in any letter case.
func robotsNofollow(content string) bool {
	for d := range strings.SplitSeq(content, ",") {
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "nofollow", "none":
			return true
		}
	}
	return false
}

// relNofollow reports whether a rel attribute's space-separated tokens
// include "nofollow".
func relNofollow(rel string) bool {
	for _, t := range strings.Fields(rel) {
		if strings.EqualFold(t, "nofollow") {
			return true
		}
	}
	return false
}

// element records the links of one element.
func (c *collector) element(tag string, attrs []html.Attribute) {
	get := func(key string) string {
		v, _ := attr(attrs, key)
		return v
	}
	if tag == "meta" && strings.EqualFold(strings.TrimSpace(get("name")), "robots") && robotsNofollow(get("content")) {
		c.nofollow = true
	}
	nofollow := (tag == "a" || tag == "area") && relNofollow(get("rel"))
	for _, r := range htmlurl.RulesFor(tag) {
		v, ok := attr(attrs, r.Attr)
		if !ok {
			continue
		}
		kind, ok := r.Classify(get)
		if !ok {
			continue
		}
		if r.Whole() {
			c.add(v, kind, tag, r.Attr, nofollow) // Spans(v) is all of v
			continue
		}
		for _, sp := range r.Spans(v) {
			c.add(v[sp.Start:sp.End], kind, tag, r.Attr, nofollow)
		}
	}
	c.styleAttr(tag, func(k string) (string, bool) { return attr(attrs, k) })
}

// add records the link ref; nofollow says its element has rel="nofollow".
// A link found again keeps its first place; it is Nofollow only while
// every occurrence is.
func (c *collector) add(ref string, kind Kind, tag, attrName string, nofollow bool) {
	if len(c.links) >= MaxLinks || kind == Action {
		return
	}
	var u string
	if c.resolve != nil {
		var ok bool
		if u, ok = c.resolve(ref); !ok {
			return
		}
	} else {
		var err error
		if u, err = urlkey.Resolve(c.base, c.query.Encode(ref)); err != nil {
			return
		}
	}
	if c.seen[u] {
		if !nofollow && c.nofollowed[u] {
			delete(c.nofollowed, u)
			for i := range c.links {
				if c.links[i].URL == u {
					c.links[i].Nofollow = false
				}
			}
		}
		return
	}
	c.seen[u] = true
	if nofollow {
		if c.nofollowed == nil {
			c.nofollowed = map[string]bool{}
		}
		c.nofollowed[u] = true
	}
	c.links = append(c.links, Link{URL: u, Kind: kind, Tag: tag, Attr: attrName, Nofollow: nofollow})
}

// setBase sets the document base URL from a <base href>; an href that does
// not resolve to http or https leaves the page's own URL as base.
func (c *collector) setBase(href string) {
	if u, err := urlkey.Resolve(c.base, c.query.Encode(href)); err == nil {
		c.base = u
	}
}

// attr returns the value of the attribute key. The parser lower-cases
// attribute names and keeps the first of duplicates, as a browser does.
func attr(attrs []html.Attribute, key string) (string, bool) {
	for _, a := range attrs {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
