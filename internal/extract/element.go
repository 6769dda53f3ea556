package extract

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/urlkey"
)

// A rule says that attribute attr of element tag holds a URL of a kind.
type rule struct {
	tag, attr string
	kind      Kind
}

// rules lists the URL-bearing attributes, in the order they are reported
// for one element (img: src before srcset). link[href] is classified by its
// rel (linkKind); meta[content] counts only for http-equiv=refresh;
// input[src] only for type=image.
var rules = []rule{
	{"a", "href", Page},
	{"area", "href", Page},
	{"link", "href", Requisite},
	{"meta", "content", Page},
	{"frame", "src", Frame},
	{"iframe", "src", Frame},
	{"img", "src", Requisite},
	{"img", "srcset", Requisite},
	{"script", "src", Requisite},
	{"source", "src", Requisite},
	{"source", "srcset", Requisite},
	{"video", "src", Requisite},
	{"video", "poster", Requisite},
	{"audio", "src", Requisite},
	{"track", "src", Requisite},
	{"embed", "src", Requisite},
	{"object", "data", Requisite},
	{"input", "src", Requisite},
	{"body", "background", Requisite},
	{"table", "background", Requisite},
	{"td", "background", Requisite},
	{"th", "background", Requisite},
}

// selector matches every element some rule may apply to.
var selector = func() string {
	var b strings.Builder
	for i, r := range rules {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.tag + "[" + r.attr + "]")
	}
	return b.String()
}()

type collector struct {
	base  string // document base URL, canonical
	query *queryEncoder
	seen  map[string]bool
	links []Link
}

// element records the links of one element.
func (c *collector) element(tag string, attrs []html.Attribute) {
	for _, r := range rules {
		if r.tag != tag {
			continue
		}
		v, ok := attr(attrs, r.attr)
		if !ok {
			continue
		}
		kind := r.kind
		switch tag {
		case "link":
			rel, _ := attr(attrs, "rel")
			if kind, ok = linkKind(rel); !ok {
				continue
			}
		case "meta":
			if he, _ := attr(attrs, "http-equiv"); !strings.EqualFold(strings.TrimSpace(he), "refresh") {
				continue
			}
			if v, ok = refreshURL(v); !ok {
				continue
			}
		case "input":
			if t, _ := attr(attrs, "type"); !strings.EqualFold(strings.TrimSpace(t), "image") {
				continue
			}
		}
		if r.attr == "srcset" {
			for _, u := range srcsetURLs(v) {
				c.add(u, kind, tag, r.attr)
			}
			continue
		}
		c.add(v, kind, tag, r.attr)
	}
}

func (c *collector) add(ref string, kind Kind, tag, attrName string) {
	if len(c.links) >= MaxLinks {
		return
	}
	u, err := urlkey.Resolve(c.base, c.query.fix(ref))
	if err != nil || c.seen[u] {
		return
	}
	c.seen[u] = true
	c.links = append(c.links, Link{URL: u, Kind: kind, Tag: tag, Attr: attrName})
}

// setBase sets the document base URL from a <base href>; an href that does
// not resolve to http or https leaves the page's own URL as base.
func (c *collector) setBase(href string) {
	if u, err := urlkey.Resolve(c.base, c.query.fix(href)); err == nil {
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

// linkKind classifies a <link> by its rel tokens: resources the page loads
// (stylesheet, icons, preload, manifest) are requisites; hints that name an
// origin rather than a resource (preconnect, dns-prefetch) are no link at
// all; everything else (canonical, alternate, next, prev, ...) names another
// document, a page to crawl.
func linkKind(rel string) (Kind, bool) {
	hintOnly := false
	for _, tok := range strings.Fields(strings.ToLower(rel)) {
		switch {
		case tok == "stylesheet", tok == "icon", strings.HasSuffix(tok, "-icon"),
			strings.HasPrefix(tok, "apple-touch-icon"), tok == "manifest",
			tok == "preload", tok == "modulepreload", tok == "prefetch", tok == "image_src":
			return Requisite, true
		case tok == "preconnect", tok == "dns-prefetch":
			hintOnly = true
		}
	}
	return Page, !hintOnly
}
