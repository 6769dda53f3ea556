package rewrite

import (
	"slices"
	"strings"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// A rule says that attribute attr of element tag holds a URL of a kind.
//
// rules, linkKind, srcset splitting, refresh parsing and the query encoder
// repeat extract's unexported ones (extract/element.go, srcset.go,
// refresh.go, query.go), here with positions; TestAgreesWithExtract and
// FuzzAgree hold the two packages to the same links.
type rule struct {
	tag, attr string
	kind      extract.Kind
}

var rules = []rule{
	{"a", "href", extract.Page},
	{"area", "href", extract.Page},
	{"link", "href", extract.Requisite},
	{"meta", "content", extract.Page},
	{"frame", "src", extract.Frame},
	{"iframe", "src", extract.Frame},
	{"img", "src", extract.Requisite},
	{"img", "srcset", extract.Requisite},
	{"script", "src", extract.Requisite},
	{"source", "src", extract.Requisite},
	{"source", "srcset", extract.Requisite},
	{"video", "src", extract.Requisite},
	{"video", "poster", extract.Requisite},
	{"audio", "src", extract.Requisite},
	{"track", "src", extract.Requisite},
	{"embed", "src", extract.Requisite},
	{"object", "data", extract.Requisite},
	{"input", "src", extract.Requisite},
	{"body", "background", extract.Requisite},
	{"table", "background", extract.Requisite},
	{"td", "background", extract.Requisite},
	{"th", "background", extract.Requisite},
}

var hasRules = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range rules {
		m[r.tag] = true
	}
	return m
}()

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
	var edits []edit
	for _, ru := range rules {
		if ru.tag != tag {
			continue
		}
		a, v, ok := get(ru.attr)
		if !ok {
			continue
		}
		kind := ru.kind
		switch tag {
		case "link":
			_, rel, _ := get("rel")
			if kind, ok = linkKind(rel); !ok {
				continue
			}
		case "meta":
			if _, he, _ := get("http-equiv"); !strings.EqualFold(strings.TrimSpace(he), "refresh") {
				continue
			}
		case "input":
			if _, t, _ := get("type"); !strings.EqualFold(strings.TrimSpace(t), "image") {
				continue
			}
		}
		rv := raw[a.v0:a.v1]
		spans := [][2]int{{0, len(rv)}}
		switch {
		case ru.attr == "srcset":
			spans = r.sameSpans(rv, srcsetSpans(string(rv)), v, srcsetSpans(v))
		case tag == "meta":
			spans = nil
			if s, e, ok := refreshSpan(string(rv)); ok {
				if s2, e2, ok := refreshSpan(v); ok {
					spans = r.sameSpans(rv, [][2]int{{s, e}}, v, [][2]int{{s2, e2}})
				}
			}
		}
		var pieces []piece
		for _, sp := range spans {
			u := v
			if sp != [2]int{0, len(rv)} {
				if u, ok = r.value(rv[sp[0]:sp[1]]); !ok {
					continue
				}
			}
			if ref, ok := r.ref(u, kind); ok {
				pieces = append(pieces, piece{sp[0], sp[1], ref})
			}
		}
		if len(pieces) > 0 {
			edits = append(edits, edit{off + a.v0, off + a.v1, newValue(rv, a.quote, pieces)})
		}
	}
	// Rules list src before srcset; the attributes may come in any order.
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	r.links = append(r.links, edits...)
}

// sameSpans returns spans, the URLs found in the raw value rv, if they are
// the URLs found in its meaning v at vspans (else none): a srcset or refresh
// whose separators are written as character references is left alone.
func (r *rewriter) sameSpans(rv []byte, spans [][2]int, v string, vspans [][2]int) [][2]int {
	if len(spans) != len(vspans) {
		return nil
	}
	for i, sp := range spans {
		u, ok := r.value(rv[sp[0]:sp[1]])
		if !ok || strings.TrimSpace(u) != strings.TrimSpace(v[vspans[i][0]:vspans[i][1]]) {
			return nil
		}
	}
	return spans
}

// ref returns the reference that replaces the link v (an attribute value,
// decoded) of a kind, or false to leave it.
func (r *rewriter) ref(v string, kind extract.Kind) (string, bool) {
	t := strings.TrimSpace(v)
	if t == "" || t[0] == '#' {
		return "", false
	}
	abs, err := urlkey.Resolve(r.base, r.query.fix(v))
	if err != nil {
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

// escape percent-encodes the bytes of s that are controls, space, non-ASCII
// or in set.
func escape(s, set string) string {
	var b strings.Builder
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

// linkKind classifies a <link> by its rel tokens, as extract does:
// resources the page loads are requisites; preconnect and dns-prefetch name
// no resource and are no link; anything else names a page.
func linkKind(rel string) (extract.Kind, bool) {
	hintOnly := false
	for _, tok := range strings.Fields(strings.ToLower(rel)) {
		switch {
		case tok == "stylesheet", tok == "icon", strings.HasSuffix(tok, "-icon"),
			strings.HasPrefix(tok, "apple-touch-icon"), tok == "manifest",
			tok == "preload", tok == "modulepreload", tok == "prefetch", tok == "image_src":
			return extract.Requisite, true
		case tok == "preconnect", tok == "dns-prefetch":
			hintOnly = true
		}
	}
	return extract.Page, !hintOnly
}
