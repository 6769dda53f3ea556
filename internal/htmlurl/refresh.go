package htmlurl

import "strings"

// RefreshURL returns where the URL is in the content of <meta
// http-equiv=refresh>, parsed as the HTML Standard's "shared declarative
// refresh steps" parse it: "5; url='page.html'", "0;URL=page.html",
// "3, page.html". The span holds no quotes and no surrounding white space.
// ok is false, and the span meaningless, if content holds no URL (a plain
// reload) or is malformed.
func RefreshURL(content string) (url Span, ok bool) {
	s := content
	i := skipSpace(s, 0)
	digits := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == digits && (i >= len(s) || s[i] != '.') {
		return Span{}, false
	}
	for i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i >= len(s) {
		return Span{}, false
	}
	if c := s[i]; c != ';' && c != ',' && !isSpace(c) {
		return Span{}, false
	}
	i = skipSpace(s, i)
	if i < len(s) && (s[i] == ';' || s[i] == ',') {
		i++
	}
	i = skipSpace(s, i)
	if i >= len(s) {
		return Span{}, false
	}
	end := len(s)
	if c := s[i]; c == 'u' || c == 'U' {
		// "url" [ws] "=" [ws], case-insensitive; if it is not all there,
		// the whole rest is the URL.
		if i+3 > len(s) || !strings.EqualFold(s[i:i+3], "url") {
			return trimSpan(s, i, end)
		}
		j := skipSpace(s, i+3)
		if j >= len(s) || s[j] != '=' {
			return trimSpan(s, i, end)
		}
		i = skipSpace(s, j+1)
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
