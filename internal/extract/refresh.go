package extract

import "strings"

// refreshURL returns the URL in the content of <meta http-equiv=refresh>,
// parsed as the HTML Standard's "shared declarative refresh steps" parse it:
// "5; url='page.html'", "0;URL=page.html", "3, page.html". ok is false if
// content holds no URL (a plain reload) or is malformed.
func refreshURL(content string) (url string, ok bool) {
	s := content
	i := skipSpace(s, 0)
	digits := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == digits && (i >= len(s) || s[i] != '.') {
		return "", false
	}
	for i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i >= len(s) {
		return "", false
	}
	if c := s[i]; c != ';' && c != ',' && !isSpace(c) {
		return "", false
	}
	i = skipSpace(s, i)
	if i < len(s) && (s[i] == ';' || s[i] == ',') {
		i++
	}
	i = skipSpace(s, i)
	if i >= len(s) {
		return "", false
	}
	url = s[i:]
	if c := s[i]; c == 'u' || c == 'U' {
		// "url" [ws] "=" [ws], case-insensitive; if it is not all there,
		// the whole rest is the URL.
		if i+3 > len(s) || !strings.EqualFold(s[i:i+3], "url") {
			return strings.TrimSpace(url), true
		}
		j := skipSpace(s, i+3)
		if j >= len(s) || s[j] != '=' {
			return strings.TrimSpace(url), true
		}
		i = skipSpace(s, j+1)
	}
	// Skip quotes.
	url = s[i:]
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		url = s[i+1:]
		if k := strings.IndexByte(url, s[i]); k >= 0 {
			url = url[:k]
		}
	}
	url = strings.TrimSpace(url)
	return url, url != ""
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
