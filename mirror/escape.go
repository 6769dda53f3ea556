package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// decodeSegment decodes, for readability, each run of upper-case %XX escapes
// that spells one valid multi-byte UTF-8 character not in keptEscaped, and
// copies everything else as it is. The result's non-ASCII bytes are exactly
// the decoded ones, because a canonical path holds no raw non-ASCII byte, so
// upper-case escaping every non-ASCII byte of the result gives the segment
// back: decodeSegment is injective on canonical segments.
func decodeSegment(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if r, n := escapedRune(s[i:]); n > 0 {
			b.WriteRune(r)
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// escapedRune returns the character that s starts with as upper-case escapes
// and their length in s, or 0 when s does not start with one that may be
// decoded.
func escapedRune(s string) (rune, int) {
	lead, ok := upperEscape(s)
	if !ok || lead < 0xc2 || lead > 0xf4 {
		return 0, 0
	}
	size := 2
	if lead >= 0xf0 {
		size = 4
	} else if lead >= 0xe0 {
		size = 3
	}
	if len(s) < 3*size {
		return 0, 0
	}
	var buf [4]byte
	for k := range size {
		if buf[k], ok = upperEscape(s[3*k:]); !ok {
			return 0, 0
		}
	}
	r, n := utf8.DecodeRune(buf[:size])
	if r == utf8.RuneError || n != size || keptEscaped(r) {
		return 0, 0
	}
	return r, 3 * size
}

// upperEscape decodes a leading "%XX" whose hex digits are 0-9 or A-F.
func upperEscape(s string) (byte, bool) {
	if len(s) < 3 || s[0] != '%' {
		return 0, false
	}
	hi, ok1 := upperHex(s[1])
	lo, ok2 := upperHex(s[2])
	return hi<<4 | lo, ok1 && ok2
}

func upperHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// keptRanges lists the non-ASCII characters that stay percent-encoded in a
// file name: C1 controls, every Unicode White_Space and format (Cf)
// character as of Unicode 15 (bidi embeddings, overrides and isolates,
// zero-width characters, U+FEFF, soft hyphen, tags), and the Specials block.
// It is written out rather than taken from package unicode so that a newer
// Unicode table in a newer Go never moves a page to another file.
var keptRanges = [...][2]rune{
	{0x0080, 0x00a0}, {0x00ad, 0x00ad}, {0x0600, 0x0605}, {0x061c, 0x061c},
	{0x06dd, 0x06dd}, {0x070f, 0x070f}, {0x0890, 0x0891}, {0x08e2, 0x08e2},
	{0x1680, 0x1680}, {0x180e, 0x180e}, {0x2000, 0x200f}, {0x2028, 0x202f},
	{0x205f, 0x206f}, {0x3000, 0x3000}, {0xfdd0, 0xfdef}, {0xfeff, 0xfeff},
	{0xfff0, 0xffff}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
	{0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
	{0xe0000, 0xe007f},
}

func keptEscaped(r rune) bool {
	if r&0xfffe == 0xfffe { // the noncharacters U+xxFFFE and U+xxFFFF
		return true
	}
	for _, k := range keptRanges {
		if k[0] <= r && r <= k[1] {
			return true
		}
	}
	return false
}

// escapeQuery makes a query part of one file name, reversibly: '%', '/',
// '\\', '#', '{', '}' and every byte outside 0x21–0x7E become %XX (upper
// case), so every '%' in the result starts an escape it made and no brace
// of the layout's marks comes from a query.
func escapeQuery(q string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(q))
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c < 0x21 || c > 0x7e || c == '%' || c == '/' || c == '\\' || c == '#' || c == '{' || c == '}' {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// component returns name if it is at most maxName bytes long. A longer name
// becomes a prefix of it, cut on a UTF-8 boundary, then '~', 16 hex digits
// of the SHA-256 of the whole name, then name's extension (from its last
// '.') if that is at most 8 bytes. The result is 217–220 bytes long, always
// longer than maxName, so it is never mistaken for a name kept as it is.
func component(name string) string { return shorten(name) }

func shorten(name string) string {
	if len(name) <= maxName {
		return name
	}
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 && len(name)-i <= 8 {
		ext = name[i:]
	}
	sum := sha256.Sum256([]byte(name))
	cut := min(hashedLen-1-16-len(ext), len(name))
	for cut > 0 && cut < len(name) && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "~" + hex.EncodeToString(sum[:8]) + ext
}
