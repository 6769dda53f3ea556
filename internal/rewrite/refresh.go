package rewrite

import (
	"strings"
	"unicode"
)

// refreshSpan returns where the URL is in the content of <meta
// http-equiv=refresh>, parsed as extract parses it (the HTML Standard's
// "shared declarative refresh steps"): "5; url='page.html'",
// "0;URL=page.html", "3, page.html". ok is false if content holds no URL.
func refreshSpan(s string) (start, end int, ok bool) {
	i := skipSpaceString(s, 0)
	digits := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == digits && (i >= len(s) || s[i] != '.') {
		return 0, 0, false
	}
	for i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i >= len(s) {
		return 0, 0, false
	}
	if c := s[i]; c != ';' && c != ',' && !isSpace(c) {
		return 0, 0, false
	}
	i = skipSpaceString(s, i)
	if i < len(s) && (s[i] == ';' || s[i] == ',') {
		i++
	}
	i = skipSpaceString(s, i)
	if i >= len(s) {
		return 0, 0, false
	}
	end = len(s)
	if c := s[i]; c == 'u' || c == 'U' {
		// "url" [ws] "=" [ws], case-insensitive; if it is not all there,
		// the whole rest is the URL.
		if i+3 > len(s) || !strings.EqualFold(s[i:i+3], "url") {
			return trimSpan(s, i, end)
		}
		j := skipSpaceString(s, i+3)
		if j >= len(s) || s[j] != '=' {
			return trimSpan(s, i, end)
		}
		i = skipSpaceString(s, j+1)
	}
	// Skip quotes.
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		if k := strings.IndexByte(s[i+1:], s[i]); k >= 0 {
			end = i + 1 + k
		}
		i++
	}
	return trimSpan(s, i, end)
}

// trimSpan returns s[start:end] without the white space strings.TrimSpace
// removes, and whether anything is left.
func trimSpan(s string, start, end int) (int, int, bool) {
	t := s[start:end]
	l := strings.TrimLeftFunc(t, unicode.IsSpace)
	start += len(t) - len(l)
	u := strings.TrimRightFunc(l, unicode.IsSpace)
	return start, start + len(u), u != ""
}

func skipSpaceString(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
