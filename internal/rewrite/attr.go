package rewrite

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// An attr is where one attribute lies in the raw bytes of a start tag.
type attr struct {
	key        string // name, ASCII lower-cased as the tokenizer does
	start, end int    // the whole attribute, from name to closing quote
	v0, v1     int    // the value, without quotes
	quote      byte   // '"' or '\'' if the value is quoted, else 0
}

// scanAttrs returns every attribute of the start tag raw (from '<' to '>'),
// duplicates and empty names included, found by the steps that
// golang.org/x/net/html's tokenizer takes (readTag), which does not say where
// they are.
// The attributes are appended to dst.
func scanAttrs(dst []attr, raw []byte) []attr {
	n := len(raw)
	i := 1 // past '<'
	for i < n && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++ // tag name
	}
	attrs := dst
	for i = skipSpace(raw, i); i < n && raw[i] != '>'; i = skipSpace(raw, i) {
		a := attr{start: i}
		for i < n {
			c := raw[i]
			if c == '=' && i == a.start {
				i++ // a leading '=' is part of the name
				continue
			}
			if isSpace(c) || c == '/' || c == '>' || c == '=' {
				break
			}
			i++
		}
		a.key = lowerName(raw[a.start:i])
		a.v0, a.v1, a.end = i, i, i
		j := skipSpace(raw, i)
		switch {
		case j < n && raw[j] == '/':
			i = j + 1
		case j < n && raw[j] == '=':
			j = skipSpace(raw, j+1)
			switch {
			case j >= n || raw[j] == '>':
				i, a.end = j, j
			case raw[j] == '"' || raw[j] == '\'':
				a.quote = raw[j]
				a.v0, a.v1, i = j+1, n, n
				if k := bytes.IndexByte(raw[j+1:], raw[j]); k >= 0 {
					a.v1, i = j+1+k, j+2+k
				}
				a.end = i
			default:
				a.v0 = j
				for j < n && !isSpace(raw[j]) && raw[j] != '>' {
					j++
				}
				a.v1, a.end, i = j, j, j
			}
		default:
			i = j
		}
		attrs = append(attrs, a)
	}
	return attrs
}

// agree returns the attributes of the current start tag of z, which has raw
// bytes raw, as the tokenizer sees them: the first of duplicate names, none
// with an empty name. ok is false if scanAttrs and the tokenizer disagree on
// the names, which they should not. With collect, tok holds every
// attribute as the tokenizer reads it (for extract.Collector), whether
// they agree or not.
//
// attrs and tok reuse the memory of r's last call: they are valid until the
// next.
func (r *rewriter) agree(z *html.Tokenizer, raw []byte, collect bool) (attrs []attr, tok []html.Attribute, ok bool) {
	r.scanned = scanAttrs(r.scanned[:0], raw)
	attrs = r.kept[:0]
	for _, a := range r.scanned {
		if a.key != "" && !has(attrs, a.key) {
			attrs = append(attrs, a)
		}
	}
	r.kept = attrs
	tok = r.tok[:0]
	ok = true
	i := 0
	for more := true; more; i++ {
		var key, val []byte
		key, val, more = z.TagAttr()
		if key == nil && !more && i == 0 {
			break // no attributes
		}
		if collect {
			tok = append(tok, html.Attribute{Key: intern(key), Val: string(val)})
		}
		if ok && (i >= len(attrs) || string(key) != strings.ReplaceAll(attrs[i].key, "\x00", "\uFFFD")) {
			ok = false
			if !collect {
				break
			}
		}
	}
	r.tok = tok[:0]
	if !ok || i != len(attrs) {
		return nil, tok, false
	}
	return attrs, tok, true
}

// has reports whether attrs holds one named key.
func has(attrs []attr, key string) bool {
	for _, a := range attrs {
		if a.key == key {
			return true
		}
	}
	return false
}

// first returns the attribute named key.
func first(attrs []attr, key string) (attr, bool) {
	for _, a := range attrs {
		if a.key == key {
			return a, true
		}
	}
	return attr{}, false
}

// value returns what the raw attribute value b means, as extract reads it:
// decoded from the page's encoding, then its character references
// unescaped as the tokenizer does in an attribute ("&copy=" stays as is).
func (r *rewriter) value(b []byte) (string, bool) {
	if r.dec != nil {
		d, err := r.dec.Bytes(b)
		if err != nil {
			return "", false
		}
		b = d
	}
	s := string(b)
	if !strings.ContainsAny(s, "&\r\x00") {
		return s, true
	}
	if strings.Count(s, "&") == strings.Count(s, "&amp;") && !strings.ContainsAny(s, "\r\x00") {
		return strings.ReplaceAll(s, "&amp;", "&"), true
	}
	// Let the tokenizer unescape it, in pieces that hold no '"' (a '"'
	// ends no character reference differently from the end of a value).
	pieces := strings.Split(s, `"`)
	for i, p := range pieces {
		z := html.NewTokenizer(strings.NewReader(`<a v="` + p + `">`))
		z.Next()
		z.TagName()
		_, v, _ := z.TagAttr()
		pieces[i] = string(v)
	}
	return strings.Join(pieces, `"`), true
}

// newValue returns the raw bytes that replace the raw value v (attribute
// quoted with quote, or 0) once the pieces of it are replaced by references.
// An unquoted value that now needs quotes gets them.
func newValue(v []byte, quote byte, pieces []piece) []byte {
	n := len(v) + 2
	for _, p := range pieces {
		n += len(p.ref) + 8
	}
	b := make([]byte, 0, n) // one allocation for most values
	last := 0
	for _, p := range pieces {
		b = append(b, v[last:p.start]...)
		for i := 0; i < len(p.ref); i++ {
			switch c := p.ref[i]; {
			case c == '&':
				b = append(b, "&amp;"...)
			case c == '"' && quote == '"':
				b = append(b, "&quot;"...)
			case c == '\'' && quote == '\'':
				b = append(b, "&#39;"...)
			default:
				b = append(b, c)
			}
		}
		last = p.end
	}
	b = append(b, v[last:]...)
	if quote != 0 || (len(b) > 0 && !bytes.ContainsAny(b, " \t\n\f\r\"'=<>`")) {
		return b
	}
	q := byte('"')
	if bytes.IndexByte(b, '"') >= 0 && bytes.IndexByte(b, '\'') < 0 {
		q = '\''
	} else {
		b = bytes.ReplaceAll(b, []byte(`"`), []byte("&quot;"))
	}
	return append(append([]byte{q}, b...), q)
}

// names are the tag and attribute names that pages use most, so that
// reading one allocates nothing (intern).
var names = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(`a abbr alt area article aside audio b background base blockquote body
		br button caption charset class code content col colspan data dd defer details div dl dt em
		embed figcaption figure footer for form frame h1 h2 h3 h4 h5 h6 head header height hr href
		hreflang html http-equiv i id iframe img input integrity label lang li link loading main meta
		media name nav noscript object ol option p picture poster pre property rel role rowspan
		script section select sizes small source span src srcset strong style sub sup svg table
		target tbody td textarea tfoot th thead time title tr track type u ul value video width`) {
		m[n] = n
	}
	return m
}()

// intern returns b as a string, without allocating for the common names.
func intern(b []byte) string {
	if s, ok := names[string(b)]; ok {
		return s
	}
	return string(b)
}

// lowerName returns b ASCII lower-cased, as a string (interned).
func lowerName(b []byte) string {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			return intern(lower(b))
		}
	}
	return intern(b)
}

// lower returns an ASCII lower-case copy of b.
func lower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// isSpace reports ASCII whitespace as the HTML Standard defines it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
