package rewrite

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// prescanLen is how far into a file the HTML Standard's prescan looks for a
// <meta charset>.
const prescanLen = 1024

// Charset returns body, an HTML page served with Content-Type header value
// contentType, made to declare its encoding in the file itself: a browser
// opening the file from disk has no header and finds the encoding only from
// a byte order mark or a <meta charset> in the first 1024 bytes. If the
// file alone already names the encoding the header gave (or it has a BOM),
// body is returned as it is. Otherwise a <meta charset="NAME"> is inserted
// right after the <head> start tag if that ends within the first 1024
// bytes, else at the start of the page (after a leading doctype, comments
// and white space): the prescan takes the first declaration it meets, so it
// also wins over a <meta> that names another encoding than the header. The
// page's bytes are never converted. A page whose encoding is not
// ASCII-compatible (UTF-16) is returned as it is: it has a BOM or cannot be
// declared this way.
func Charset(body []byte, contentType string) []byte {
	return declare(body, contentType, -1)
}

// declare is Charset, with at the offset metaPlace returns for body if
// known, or -1.
func declare(body []byte, contentType string, at int) []byte {
	_, served, _ := charset.DetermineEncoding(body, contentType)
	// Without a BOM the file names its encoding only in a <meta> holding
	// the word "charset"; a utf-8 or windows-1252 answer without one is the
	// guess that a browser may not make. Only then is the prescan run.
	head := body[:min(len(body), prescanLen)]
	if hasBOM(body) || containsFold(head, "charset") {
		if _, fromFile, _ := charset.DetermineEncoding(body, ""); fromFile == served {
			return body
		}
	}
	switch served {
	case "utf-16be", "utf-16le", "replacement":
		return body
	}
	if at < 0 {
		at = metaPlace(body)
	}
	meta := []byte(`<meta charset="` + served + `">`)
	out := make([]byte, 0, len(body)+len(meta))
	out = append(out, body[:at]...)
	out = append(out, meta...)
	return append(out, body[at:]...)
}

// hasBOM reports whether body starts with a UTF-8 or UTF-16 byte order
// mark, which a browser takes over any declaration.
func hasBOM(body []byte) bool {
	return bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(body, []byte("\xfe\xff")) ||
		bytes.HasPrefix(body, []byte("\xff\xfe"))
}

// containsFold reports whether b holds word (lower-case ASCII) in any
// letter case, without allocating.
func containsFold(b []byte, word string) bool {
	for i := 0; i+len(word) <= len(b); i++ {
		if b[i]|0x20 == word[0] && bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			return true
		}
	}
	return false
}

// metaPlace returns the offset where a <meta charset> goes: after the
// <head> start tag if it ends within prescanLen bytes, else after the
// doctype, comments and white space that begin the page.
func metaPlace(body []byte) int {
	z := html.NewTokenizer(bytes.NewReader(body))
	p := newPlacer()
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			p.end()
			return p.at
		}
		raw := z.Raw()
		var name string
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			n, _ := z.TagName()
			name = string(n)
		}
		if p.token(tt, raw, name) {
			return p.at
		}
	}
}

// A placer finds metaPlace's offset token by token, so that a pass of the
// tokenizer made for something else (rewrite's) can find it too.
type placer struct {
	off, lead int
	leading   bool
	at        int  // the offset once known; -1 until then
	lost      bool // the pass reads the page unlike metaPlace's: at stays -1
}

// open reports whether the placer still takes tokens.
func (p *placer) open() bool { return p.at < 0 && !p.lost }

func newPlacer() *placer { return &placer{leading: true, at: -1} }

// token takes the next token of the page: its type, its raw bytes and, for
// a start tag, its lower-case name. It reports whether the place is known.
func (p *placer) token(tt html.TokenType, raw []byte, name string) bool {
	if p.at >= 0 {
		return true
	}
	p.off += len(raw)
	switch {
	case tt == html.StartTagToken || tt == html.SelfClosingTagToken:
		if name == "head" && p.off <= prescanLen {
			p.at = p.off
			return true
		}
		p.leading = false
	case tt == html.DoctypeToken || tt == html.CommentToken ||
		tt == html.TextToken && len(bytes.TrimSpace(raw)) == 0:
		if p.leading {
			p.lead = p.off
		}
	default:
		p.leading = false
	}
	if p.off >= prescanLen {
		p.end()
		return true
	}
	return false
}

// end is told that the page ended, or that the bytes the prescan reads are
// behind: the place is after the leading doctype, comments and white
// space, unless they fill the prescan's bytes.
func (p *placer) end() {
	if !p.open() {
		return
	}
	p.at = p.lead
	if p.lead > prescanLen-64 {
		p.at = 0
	}
}
