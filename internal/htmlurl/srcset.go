package htmlurl

import "strings"

// SrcsetURLs returns where the URLs of the image candidates in a srcset
// attribute value s are, split as the HTML Standard's "parse a srcset
// attribute" algorithm splits it: a candidate is a URL (a run of
// non-whitespace, so it may contain commas, but trailing commas end it)
// followed by optional descriptors up to a comma outside parentheses.
// Descriptors are skipped, not validated. No span is empty.
func SrcsetURLs(s string) []Span {
	var spans []Span
	i := 0
	for {
		// Skip whitespace and commas before a candidate.
		for i < len(s) && (isSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return spans
		}
		start := i
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
		if end := start + len(strings.TrimRight(s[start:i], ",")); end < i {
			// "a.jpg," ends the candidate: no descriptors.
			if end > start {
				spans = append(spans, Span{start, end})
			}
			continue
		}
		spans = append(spans, Span{start, i})
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
