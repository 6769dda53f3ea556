package rewrite

import (
	"fmt"
	"strings"

	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// CSS returns the style sheet body, served at base, with the URL of every
// url() and @import string for which target says ok replaced by target's
// reference (of kind htmlurl.Style for an @import, else htmlurl.Requisite),
// and every other byte as served:
// comments, white space, quotes and the bytes around each URL. The sheet is
// read as UTF-8 (ASCII-compatible encodings keep their bytes; a non-ASCII
// byte in a URL that is not UTF-8 is percent-encoded as it is). A URL with
// CSS escapes is unescaped before it is resolved; a reference is escaped
// for the place it is written in (a quoted string or an unquoted url()).
// If nothing is rewritten, the result is body itself.
//
// The error is non-nil only if base is not a valid http or https URL.
func CSS(body []byte, base string, target Target) ([]byte, error) {
	page, err := urlkey.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("rewrite: base url: %w", err)
	}
	r := &rewriter{body: body, base: page, target: target, query: htmlurl.NewQueryEncoder("utf-8")}
	var edits []edit
	for _, u := range htmlurl.CSSURLs(body) {
		v, ok := r.cssValue(body[u.Start:u.End])
		if !ok {
			continue
		}
		if ref, ok := r.ref(v, cssKind(u)); ok {
			edits = append(edits, edit{u.Start, u.End, []byte(cssEscape(ref, u.Quote))})
		}
	}
	if len(edits) == 0 {
		return body, nil
	}
	return apply(body, edits), nil
}

// cssValue returns the URL that the raw text b of a CSS URL means: its CSS
// decoded from the page's encoding, then its CSS escapes unescaped.
func (r *rewriter) cssValue(b []byte) (string, bool) {
	if r.dec != nil {
		d, err := r.dec.Bytes(b)
		if err != nil {
			return "", false
		}
		b = d
	}
	return htmlurl.CSSUnescape(b), true
}

// cssEscape writes the reference ref (ASCII, already URL-escaped) so that
// CSS reads it back: in a string quoted with quote, the quote and '\\' get
// a backslash; unquoted, so do '(', ')', quotes and white space.
func cssEscape(ref string, quote byte) string {
	special := `\()"'` + " \t\n\r\f"
	if quote != 0 {
		special = `\` + string(quote) + "\n\r\f"
	}
	if !strings.ContainsAny(ref, special) {
		return ref
	}
	var b strings.Builder
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case c == '\n' || c == '\r' || c == '\f' || c == ' ' || c == '\t':
			fmt.Fprintf(&b, "\\%x ", c)
		case strings.IndexByte(special, c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// styleText records the rewritten URLs of the text of a <style> element,
// raw, at offset off of the body.
func (r *rewriter) styleText(raw []byte, off int) {
	for _, u := range htmlurl.CSSURLs(raw) {
		v, ok := r.cssValue(raw[u.Start:u.End])
		if !ok {
			continue
		}
		if ref, ok := r.ref(v, cssKind(u)); ok {
			r.links = append(r.links, edit{off + u.Start, off + u.End, []byte(cssEscape(ref, u.Quote))})
		}
	}
}

// styleAttr returns the edit of a style attribute a of the start tag raw at
// offset off, if any URL in it is rewritten. The URLs are found in the raw
// value and must be the ones found in its meaning (character references
// unescaped), else the attribute is left alone.
func (r *rewriter) styleAttr(raw []byte, off int, a attr) []edit {
	rv := raw[a.v0:a.v1]
	v, ok := r.value(rv)
	if !ok {
		return nil
	}
	rawURLs, urls := htmlurl.CSSURLs(rv), htmlurl.CSSURLs([]byte(v))
	if len(rawURLs) != len(urls) {
		return nil
	}
	var pieces []piece
	for i, u := range rawURLs {
		rs, ok := r.value(rv[u.Start:u.End])
		if !ok || rs != v[urls[i].Start:urls[i].End] || u.Quote != urls[i].Quote {
			return nil
		}
		// value has decoded the page's encoding already.
		if ref, ok := r.ref(htmlurl.CSSUnescape([]byte(rs)), cssKind(u)); ok {
			pieces = append(pieces, piece{u.Start, u.End, cssEscape(ref, u.Quote)})
		}
	}
	if len(pieces) == 0 {
		return nil
	}
	return []edit{{off + a.v0, off + a.v1, newValue(rv, a.quote, pieces)}}
}

// cssKind is the kind of a URL in CSS: Style for an @import, else
// Requisite.
func cssKind(u htmlurl.CSSURL) htmlurl.Kind {
	if u.Import {
		return htmlurl.Style
	}
	return htmlurl.Requisite
}
