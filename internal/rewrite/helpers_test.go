package rewrite

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/htmlurl"

	"github.com/spider-mirror/spider/internal/extract"
)

const page = "http://example.com/dir/page.html"

// mirrorPath stands in for mirror.Path: host/path, index.html for a
// directory, the query kept in the name, ".html" added to a page or frame
// with a query.
func mirrorPath(abs string, kind extract.Kind) string {
	rest, _ := strings.CutPrefix(abs, "http://")
	rest, _ = strings.CutPrefix(rest, "https://")
	host, p, _ := strings.Cut(rest, "/")
	p, q, hasQ := strings.Cut(p, "?")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	if hasQ {
		p += "?" + q
		if kind != extract.Requisite && kind != extract.Style {
			p += ".html"
		}
	}
	return host + "/" + p
}

// A call is one question HTML asked its Target.
type call struct {
	abs  string
	kind extract.Kind
}

// mirrorTarget returns a Target that points links to hosts in scope at
// their mirror files, relative to the file of the page at base, and records
// the calls.
func mirrorTarget(base string, calls *[]call, scope ...string) Target {
	from := mirrorPath(base, extract.Page)
	return func(abs string, kind extract.Kind) (string, bool) {
		*calls = append(*calls, call{abs, kind})
		rest, _ := strings.CutPrefix(abs, "http://")
		rest, _ = strings.CutPrefix(rest, "https://")
		host, _, _ := strings.Cut(rest, "/")
		for _, s := range scope {
			if host == s {
				return Rel(from, mirrorPath(abs, kind)), true
			}
		}
		return "", false
	}
}

// urlAttrs are the attribute names that may hold a rewritten link.
var urlAttrs = map[string]bool{"href": true, "xlink:href": true, "src": true, "srcset": true,
	"poster": true, "data": true, "background": true, "content": true}

// diffOutside compares an input page with its rewritten output token by
// token and returns the changed attribute values as "tag[attr] old -> new"
// lines. It fails if anything else differs: a token's type or raw bytes, a
// tag's bytes outside its attribute values and their quotes, a value of an
// attribute that holds no link, or a <base> other than by losing its hrefs.
func diffOutside(in, out []byte) ([]string, error) {
	zi, zo := html.NewTokenizer(bytes.NewReader(in)), html.NewTokenizer(bytes.NewReader(out))
	var changes []string
	inStyle := false
	for n := 0; ; n++ {
		ti, to := zi.Next(), zo.Next()
		if ti != to {
			return nil, fmt.Errorf("token %d: %v, became %v", n, ti, to)
		}
		if ti == html.ErrorToken {
			return changes, nil
		}
		ri, ro := bytes.Clone(zi.Raw()), bytes.Clone(zo.Raw())
		if inStyle && ti == html.TextToken && !bytes.Equal(ri, ro) {
			c, err := cssChanges("style", ri, ro)
			if err != nil {
				return nil, fmt.Errorf("token %d: %w", n, err)
			}
			changes = append(changes, c...)
			inStyle = false
			continue
		}
		inStyle = false
		if ti != html.StartTagToken && ti != html.SelfClosingTagToken {
			if !bytes.Equal(ri, ro) {
				return nil, fmt.Errorf("token %d: %q became %q", n, ri, ro)
			}
			continue
		}
		name, _ := zi.TagName()
		zo.TagName()
		inStyle = string(name) == "style" && ti == html.StartTagToken
		if string(name) == "noscript" {
			zi.NextIsNotRawText()
			zo.NextIsNotRawText()
		}
		ai, ao := scanAttrs(nil, ri), scanAttrs(nil, ro)
		if string(name) == "base" {
			ai = without(ai, "href")
			if len(ao) != len(ai) && len(without(ao, "href")) == len(ai) {
				ao = without(ao, "href")
			}
		}
		if mi, mo := mask(ri, ai), mask(ro, ao); string(name) != "base" && mi != mo {
			return nil, fmt.Errorf("token %d: tag %q became %q", n, ri, ro)
		}
		if len(ai) != len(ao) {
			return nil, fmt.Errorf("token %d: %d attributes, became %d", n, len(ai), len(ao))
		}
		for i, a := range ai {
			vi, vo := string(ri[a.v0:a.v1]), string(ro[ao[i].v0:ao[i].v1])
			if vi == vo {
				continue
			}
			if a.key == "style" {
				c, err := cssChanges(string(name)+"[style]", []byte(vi), []byte(vo))
				if err != nil {
					return nil, fmt.Errorf("token %d: %w", n, err)
				}
				changes = append(changes, c...)
				continue
			}
			if !urlAttrs[a.key] {
				return nil, fmt.Errorf("token %d: %s[%s] %q became %q", n, name, a.key, vi, vo)
			}
			changes = append(changes, fmt.Sprintf("%s[%s] %s -> %s", name, a.key, vi, vo))
		}
	}
}

// mask returns the tag raw with each attribute value and its quotes
// replaced by "\x00".
func mask(raw []byte, attrs []attr) string {
	var b strings.Builder
	last := 0
	for _, a := range attrs {
		s, e := a.v0, a.v1
		if a.quote != 0 {
			s, e = s-1, min(e+1, len(raw))
		}
		if s < last {
			continue // no value
		}
		b.Write(raw[last:s])
		b.WriteByte(0)
		last = e
	}
	b.Write(raw[last:])
	return b.String()
}

func without(attrs []attr, key string) []attr {
	var out []attr
	for _, a := range attrs {
		if a.key != key {
			out = append(out, a)
		}
	}
	return out
}

// cssChanges compares CSS text before and after rewriting and returns the
// changed URLs as "where old -> new" lines, or an error if anything but the
// URLs changed.
func cssChanges(where string, in, out []byte) ([]string, error) {
	ui, uo := htmlurl.CSSURLs(in), htmlurl.CSSURLs(out)
	if len(ui) != len(uo) {
		return nil, fmt.Errorf("%s: %d urls, became %d", where, len(ui), len(uo))
	}
	if mi, mo := cssMask(in, ui), cssMask(out, uo); mi != mo {
		return nil, fmt.Errorf("%s: %q became %q outside the urls", where, in, out)
	}
	var changes []string
	for i, u := range ui {
		a, b := in[u.Start:u.End], out[uo[i].Start:uo[i].End]
		if !bytes.Equal(a, b) {
			changes = append(changes, fmt.Sprintf("%s %s -> %s", where, a, b))
		}
	}
	return changes, nil
}

// cssMask returns css with each URL replaced by "\x00".
func cssMask(css []byte, urls []htmlurl.CSSURL) string {
	var b strings.Builder
	last := 0
	for _, u := range urls {
		b.Write(css[last:u.Start])
		b.WriteByte(0)
		last = u.End
	}
	b.Write(css[last:])
	return b.String()
}
