package rewrite

import (
	"slices"
	"strings"

	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// A piece of an attribute value, raw[start:end], becomes ref.
type piece struct {
	start, end int
	ref        string
}

// element records the rewritten values of one start tag, at offset off of
// the body, with raw bytes raw.
func (r *rewriter) element(tag string, raw []byte, off int, attrs []attr) {
	get := func(key string) (attr, string, bool) {
		a, ok := first(attrs, key)
		if !ok && tag == "a" && key == "href" {
			a, ok = first(attrs, "xlink:href") // <svg><a xlink:href>, which the parser reads as href
		}
		if !ok {
			return a, "", false
		}
		v, ok := r.value(raw[a.v0:a.v1])
		return a, v, ok
	}
	getValue := func(key string) string {
		_, v, _ := get(key)
		return v
	}
	edits := r.edits[:0]
	for _, ru := range htmlurl.RulesFor(tag) {
		a, v, ok := get(ru.Attr)
		if !ok {
			continue
		}
		kind, ok := ru.Classify(getValue)
		if !ok {
			continue
		}
		rv := raw[a.v0:a.v1]
		pieces := r.pieces[:0]
		if ru.Whole() {
			// The one URL is the whole value, v: no spans to match.
			if ref, ok := r.ref(v, kind); ok {
				pieces = append(pieces, piece{0, len(rv), ref})
			}
		} else {
			for _, sp := range r.sameSpans(rv, ru.Spans(string(rv)), v, ru.Spans(v)) {
				u := v
				if sp != (htmlurl.Span{Start: 0, End: len(rv)}) {
					if u, ok = r.value(rv[sp.Start:sp.End]); !ok {
						continue
					}
				}
				if ref, ok := r.ref(u, kind); ok {
					pieces = append(pieces, piece{sp.Start, sp.End, ref})
				}
			}
		}
		if len(pieces) > 0 {
			edits = append(edits, edit{off + a.v0, off + a.v1, newValue(rv, a.quote, pieces)})
		}
		r.pieces = pieces[:0]
	}
	if a, ok := first(attrs, "style"); ok {
		edits = append(edits, r.styleAttr(raw, off, a)...)
	}
	// Rules list src before srcset; the attributes may come in any order.
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	r.links = append(r.links, edits...)
	r.edits = edits[:0]
}

// sameSpans returns spans, where htmlurl finds URLs in the raw value rv, if
// they are the URLs it finds in its meaning v at vspans (else none): a srcset
// or refresh whose separators are written as character references is left
// alone.
func (r *rewriter) sameSpans(rv []byte, spans []htmlurl.Span, v string, vspans []htmlurl.Span) []htmlurl.Span {
	if len(spans) != len(vspans) {
		return nil
	}
	for i, sp := range spans {
		u, ok := r.value(rv[sp.Start:sp.End])
		if !ok || strings.TrimSpace(u) != strings.TrimSpace(v[vspans[i].Start:vspans[i].End]) {
			return nil
		}
	}
	return spans
}

// ref returns the reference that replaces the link v (an attribute value,
// decoded) of a kind, or false to leave it.
func (r *rewriter) ref(v string, kind htmlurl.Kind) (string, bool) {
	t := strings.TrimSpace(v)
	if t == "" || t[0] == '#' {
		return "", false
	}
	abs, ok := r.resolve(v)
	if !ok {
		return "", false
	}
	ref, ok := r.target(abs, kind)
	if !ok {
		return "", false
	}
	ref = escape(ref, "")
	if i := strings.IndexByte(t, '#'); i >= 0 && !strings.Contains(ref, "#") {
		frag := strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(t[i+1:])
		ref += "#" + escape(frag, "\"<>`")
	}
	return ref, true
}

// resolve returns the canonical absolute URL of the link v on the page, as
// extract resolves it, or false if it is not an http or https URL.
func (r *rewriter) resolve(v string) (string, bool) {
	if r.col != nil {
		return r.col.Resolve(v) // the answer the links it collects have
	}
	abs, err := urlkey.Resolve(r.base, r.query.Encode(v))
	return abs, err == nil
}

// escape percent-encodes the bytes of s that are controls, space, non-ASCII
// or in set.
func escape(s, set string) string {
	i := 0
	for i < len(s) && s[i] > ' ' && s[i] < 0x7f && strings.IndexByte(set, s[i]) < 0 {
		i++
	}
	if i == len(s) {
		return s // most references: nothing to escape
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	s = s[i:]
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(set, c) >= 0 {
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
