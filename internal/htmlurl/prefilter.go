package htmlurl

import "bytes"

// MayHoldTag reports whether body holds '<' and then name (lower-case
// ASCII) in any letter case, without which a tokenizer finds no start tag
// of that name: a cheap test that spares a pass over most pages.
func MayHoldTag(body []byte, name string) bool {
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		if len(body)-i >= len(name) && bytes.EqualFold(body[i:i+len(name)], []byte(name)) {
			return true
		}
	}
}

// MayHaveStyle reports whether the raw start tag may have a style
// attribute: whether "style" occurs in it in any letter case. It does not
// allocate, as it runs on every tag with attributes.
func MayHaveStyle(raw []byte) bool {
	for i := 0; i+5 <= len(raw); i++ {
		if raw[i]|0x20 == 's' && raw[i+1]|0x20 == 't' && raw[i+2]|0x20 == 'y' && raw[i+3]|0x20 == 'l' && raw[i+4]|0x20 == 'e' {
			return true
		}
	}
	return false
}
