package htmlurl

import (
	"strings"
	"unicode"
)

// A Span is where a URL lies in an attribute value: value[Start:End].
type Span struct {
	Start, End int
}

// trimSpan returns the span s[start:end] without the white space
// strings.TrimSpace removes, and whether anything is left.
func trimSpan(s string, start, end int) (Span, bool) {
	t := s[start:end]
	l := strings.TrimLeftFunc(t, unicode.IsSpace)
	start += len(t) - len(l)
	u := strings.TrimRightFunc(l, unicode.IsSpace)
	return Span{start, start + len(u)}, u != ""
}

// isSpace reports ASCII whitespace as the HTML Standard defines it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
