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
}

// element records the links of one element.
func (c *collector) element(tag string, attrs []html.Attribute) {
	get := func(key string) string {
		v, _ := attr(attrs, key)
		return v
	}
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
			c.add(v, kind, tag, r.Attr) // Spans(v) is all of v
			continue
		}
		for _, sp := range r.Spans(v) {
			c.add(v[sp.Start:sp.End], kind, tag, r.Attr)
		}
	}
	c.styleAttr(tag, func(k string) (string, bool) { return attr(attrs, k) })
}

func (c *collector) add(ref string, kind Kind, tag, attrName string) {
	if len(c.links) >= MaxLinks {
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
		return
	}
	c.seen[u] = true
	c.links = append(c.links, Link{URL: u, Kind: kind, Tag: tag, Attr: attrName})
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
