package htmlurl

import (
	"slices"
	"strings"
)

// A Rule says that attribute Attr of element Tag holds a URL, or several.
type Rule struct {
	Tag, Attr string // lower case, as the parser and tokenizer report them
	kind      Kind   // the URL's kind, unless Classify finds otherwise
	form      form   // how the value carries its URLs
}

// A form is how an attribute value carries its URLs.
type form uint8

const (
	whole   form = iota // the value is one URL
	srcset              // image candidates: SrcsetURLs
	refresh             // "5; url=...": RefreshURL
)

// rules lists the URL-bearing attributes, in the order they are reported
// for one element (img: src before srcset).
var rules = []Rule{
	{"a", "href", Page, whole},
	{"area", "href", Page, whole},
	{"link", "href", Requisite, whole}, // classified by rel: LinkKind
	{"meta", "content", Page, refresh}, // only for http-equiv=refresh
	{"frame", "src", Frame, whole},
	{"iframe", "src", Frame, whole},
	{"img", "src", Requisite, whole},
	{"img", "srcset", Requisite, srcset},
	{"script", "src", Requisite, whole},
	{"source", "src", Requisite, whole},
	{"source", "srcset", Requisite, srcset},
	{"video", "src", Requisite, whole},
	{"video", "poster", Requisite, whole},
	{"audio", "src", Requisite, whole},
	{"track", "src", Requisite, whole},
	{"embed", "src", Requisite, whole},
	{"object", "data", Requisite, whole},
	{"input", "src", Requisite, whole}, // only for type=image
	{"input", "formaction", Action, whole},
	{"form", "action", Action, whole},
	{"button", "formaction", Action, whole},
	{"body", "background", Requisite, whole},
	{"table", "background", Requisite, whole},
	{"td", "background", Requisite, whole},
	{"th", "background", Requisite, whole},
}

var byTag = func() map[string][]Rule {
	m := map[string][]Rule{}
	for _, r := range rules {
		m[r.Tag] = append(m[r.Tag], r)
	}
	return m
}()

// Rules returns every rule, a fresh copy, in the order RulesFor keeps
// within each element.
func Rules() []Rule { return slices.Clone(rules) }

// RulesFor returns the rules for the element named tag (lower case), in the
// order its URLs are reported, or nil if it holds none. The slice is shared:
// callers must not modify it.
func RulesFor(tag string) []Rule { return byTag[tag] }

// Classify returns the kind of the URLs that r's attribute holds in an
// element whose attribute values get returns ("" for one that is absent), or
// false if there it holds none: a <link> is classified by its rel
// (LinkKind), <meta content> holds a URL only with http-equiv=refresh and
// <input src> only with type=image.
func (r Rule) Classify(get func(attr string) string) (Kind, bool) {
	switch r.Tag {
	case "link":
		return LinkKind(get("rel"))
	case "meta":
		return r.kind, strings.EqualFold(strings.TrimSpace(get("http-equiv")), "refresh")
	case "input":
		if r.Attr == "formaction" {
			return r.kind, true
		}
		return r.kind, strings.EqualFold(strings.TrimSpace(get("type")), "image")
	}
	return r.kind, true
}

// Whole reports whether r's attribute value is one URL, all of it: Spans
// of any value is then the whole value.
func (r Rule) Whole() bool { return r.form == whole }

// Spans returns where the URLs are in v, a value of r's attribute with its
// character references unescaped: all of v (even if empty or blank), each
// candidate URL of a srcset, or the URL part of a meta refresh if it has
// one.
func (r Rule) Spans(v string) []Span {
	switch r.form {
	case srcset:
		return SrcsetURLs(v)
	case refresh:
		if sp, ok := RefreshURL(v); ok {
			return []Span{sp}
		}
		return nil
	}
	return []Span{{0, len(v)}}
}

// LinkKind classifies a <link> by its rel tokens: a style sheet is Style;
// other resources the page loads (icons, preload, manifest) are
// requisites; hints that name an origin rather than a resource
// (preconnect, dns-prefetch), another name of the page itself
// (shortlink: WordPress's /?p=ID, a redirect to the page) and the
// endpoints of blog editors (pingback, EditURI, wlwmanifest) are no link
// at all; everything else (canonical, alternate, next, prev, ...) names
// another document, a page to crawl.
func LinkKind(rel string) (Kind, bool) {
	hintOnly := false
	toks := strings.Fields(strings.ToLower(rel))
	if slices.Contains(toks, "stylesheet") {
		return Style, true
	}
	for _, tok := range toks {
		switch {
		case tok == "icon", strings.HasSuffix(tok, "-icon"),
			strings.HasPrefix(tok, "apple-touch-icon"), tok == "manifest",
			tok == "preload", tok == "modulepreload", tok == "prefetch", tok == "image_src":
			return Requisite, true
		case tok == "preconnect", tok == "dns-prefetch", tok == "shortlink",
			tok == "pingback", tok == "edituri", tok == "wlwmanifest":
			hintOnly = true
		}
	}
	return Page, !hintOnly
}
