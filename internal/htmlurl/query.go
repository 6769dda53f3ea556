package htmlurl

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/transform"
)

// A QueryEncoder percent-encodes the non-ASCII characters of a link's query
// in the page's encoding before the link is resolved, as the URL Standard
// asks of a browser: on a windows-1251 page, href="?q=я" requests ?q=%FF,
// not the UTF-8 ?q=%D1%8F. The path is always UTF-8, which urlkey does. A
// nil *QueryEncoder (UTF-8 and UTF-16 pages) changes nothing.
type QueryEncoder struct {
	enc encoding.Encoding
}

// NewQueryEncoder returns the encoder for the encoding called name (as
// charset.DetermineEncoding names it), or nil if queries stay UTF-8.
func NewQueryEncoder(name string) *QueryEncoder {
	switch name {
	case "", "utf-8", "utf-16be", "utf-16le", "replacement":
		return nil
	}
	e, err := htmlindex.Get(name)
	if err != nil {
		return nil
	}
	return &QueryEncoder{enc: e}
}

// Encode returns ref with the non-ASCII characters of its query, if any,
// percent-encoded in the page's encoding. A character the encoding cannot
// represent becomes %26%23<decimal>%3B, the URL Standard's form of "&#N;".
func (q *QueryEncoder) Encode(ref string) string {
	if q == nil {
		return ref
	}
	end := len(ref)
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		end = i
	}
	start := strings.IndexByte(ref[:end], '?') + 1
	if start == 0 || ascii(ref[start:end]) {
		return ref
	}

	var b strings.Builder
	b.WriteString(ref[:start])
	e := q.enc.NewEncoder()
	for rest := ref[start:end]; rest != ""; {
		out, n, err := transform.String(e, rest)
		for i := 0; i < len(out); i++ {
			if c := out[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"#<>'", c) >= 0 {
				b.WriteByte('%')
				b.WriteByte("0123456789ABCDEF"[c>>4])
				b.WriteByte("0123456789ABCDEF"[c&15])
			} else {
				b.WriteByte(c)
			}
		}
		rest = rest[n:]
		if err == nil || rest == "" {
			break
		}
		r, size := utf8.DecodeRuneInString(rest)
		b.WriteString("%26%23" + strconv.Itoa(int(r)) + "%3B")
		rest = rest[size:]
	}
	b.WriteString(ref[end:])
	return b.String()
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
