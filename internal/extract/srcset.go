package extract

import "strings"

// srcsetURLs returns the URLs of the image candidates in a srcset attribute,
// split as the HTML Standard's "parse a srcset attribute" algorithm splits
// it: a candidate is a URL (a run of non-whitespace, so it may contain
// commas, but trailing commas end it) followed by optional descriptors up to
// a comma outside parentheses. Descriptors are skipped, not validated.
func srcsetURLs(s string) []string {
	var urls []string
	i := 0
	for {
		// Skip whitespace and commas before a candidate.
		for i < len(s) && (isSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return urls
		}
		start := i
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
		u := s[start:i]
		if trimmed := strings.TrimRight(u, ","); len(trimmed) < len(u) {
			// "a.jpg," ends the candidate: no descriptors.
			if trimmed != "" {
				urls = append(urls, trimmed)
			}
			continue
		}
		urls = append(urls, u)
		// Skip descriptors up to a comma that is not inside parentheses.
		paren := false
	descriptors:
		for ; i < len(s); i++ {
			switch c := s[i]; {
			case paren:
				if c == ')' {
					paren = false
				}
			case c == '(':
				paren = true
			case c == ',':
				i++
				break descriptors
			}
		}
	}
}

// isSpace reports ASCII whitespace as the HTML Standard defines it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
