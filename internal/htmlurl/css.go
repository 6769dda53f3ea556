package htmlurl

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// A CSSURL is where a URL is written in a style sheet: css[Start:End] is
// the text of the URL, CSS escapes included, without quotes or white space
// around it; Quote is the quote around it ('"' or '\”) or 0 for an unquoted
// url(). Import is true for the URL of an @import rule.
type CSSURL struct {
	Start, End int
	Quote      byte
	Import     bool
}

// CSSURLs returns where the URLs of url() tokens, @import strings and the
// strings of an image-set() are in the CSS text b, in order, found by tdewolff/parse's CSS tokenizer. If the
// tokenizer's tokens ever fail to spell b exactly, it returns those found
// before that point.
func CSSURLs(b []byte) []CSSURL {
	in := make([]byte, len(b), len(b)+1) // the lexer appends a NUL: keep b intact
	copy(in, b)
	l := css.NewLexer(parse.NewInputBytes(in))
	s := cssScan{importAt: -1}
	for off := 0; off < len(b); {
		tt, tok := l.Next()
		if tt == css.ErrorToken || len(tok) == 0 || off+len(tok) > len(b) || !bytes.Equal(tok, b[off:off+len(tok)]) {
			break
		}
		if s.esc.on {
			s.escapedToken(tt, tok, off)
		} else {
			s.token(tt, tok, off)
		}
		off += len(tok)
	}
	return s.out
}

// cssScan is the state of CSSURLs between two tokens.
type cssScan struct {
	out      []CSSURL
	importAt int // the @import keyword's offset, until its first token; -1 outside
	imageSet int // nesting depth inside image-set(), 0 outside
	// Inside a url( whose name is written with escapes ("\\75 rl("), which
	// the lexer reads as a function: where its argument starts and ends,
	// start -1 before the first token of it.
	esc struct {
		on         bool
		start, end int
		quote      byte
		imp        bool
	}
}

// token takes the token tok of type tt at offset off of the sheet.
func (s *cssScan) token(tt css.TokenType, tok []byte, off int) {
	switch tt {
	case css.URLToken:
		if u, ok := urlTokenURL(tok); ok {
			u.Start += off
			u.End += off
			u.Import = s.importAt >= 0
			s.out = append(s.out, u)
		}
		s.importAt = -1
	case css.FunctionToken, css.LeftParenthesisToken:
		if tt == css.FunctionToken && strings.EqualFold(CSSUnescape(tok), "url(") {
			s.esc.on, s.esc.start, s.esc.end, s.esc.quote, s.esc.imp = true, -1, -1, 0, s.importAt >= 0
		} else if s.imageSet > 0 {
			s.imageSet++
		} else if f := strings.ToLower(string(tok)); f == "image-set(" || f == "-webkit-image-set(" {
			s.imageSet = 1
		}
		s.importAt = -1
	case css.RightParenthesisToken:
		s.imageSet = max(s.imageSet-1, 0)
		s.importAt = -1
	case css.StringToken:
		if (s.importAt >= 0 || s.imageSet == 1) && len(tok) >= 2 {
			end := len(tok) - 1
			if tok[end] != tok[0] || end == 0 {
				end = len(tok) // unterminated at the end of the sheet
			}
			s.out = append(s.out, CSSURL{Start: off + 1, End: off + end, Quote: tok[0], Import: s.importAt >= 0})
		}
		s.importAt = -1
	case css.AtKeywordToken:
		s.importAt = -1
		if strings.EqualFold(string(tok), "@import") {
			s.importAt = off
		}
	case css.WhitespaceToken, css.CommentToken:
	default:
		s.importAt = -1
	}
}

// escapedToken takes a token inside the argument of an escaped url(: one
// token, a string or not, with white space and comments around it, is
// the URL; more than one is not a URL this reads.
func (s *cssScan) escapedToken(tt css.TokenType, tok []byte, off int) {
	e := &s.esc
	switch tt {
	case css.WhitespaceToken, css.CommentToken:
	case css.RightParenthesisToken:
		if e.start >= 0 {
			s.out = append(s.out, CSSURL{Start: e.start, End: e.end, Quote: e.quote, Import: e.imp})
		}
		e.on = false
	default:
		if e.start >= 0 {
			e.on = false
			return
		}
		e.start, e.end = off, off+len(tok)
		if tt == css.StringToken && len(tok) >= 2 && tok[len(tok)-1] == tok[0] {
			e.start, e.end, e.quote = off+1, off+len(tok)-1, tok[0]
		}
	}
}

// urlTokenURL finds the URL in a url() token tok: "url(" (its name maybe
// escaped), white space, a string or unquoted text, white space, ")".
func urlTokenURL(tok []byte) (CSSURL, bool) {
	open := bytes.IndexByte(tok, '(')
	if open < 0 {
		return CSSURL{}, false
	}
	i := open + 1
	for i < len(tok) && IsCSSSpace(tok[i]) {
		i++
	}
	if i < len(tok) && (tok[i] == '"' || tok[i] == '\'') {
		q := tok[i]
		for k := i + 1; k < len(tok); k++ {
			switch tok[k] {
			case '\\':
				k++
			case q:
				return CSSURL{Start: i + 1, End: k, Quote: q}, true
			}
		}
		return CSSURL{Start: i + 1, End: len(tok), Quote: q}, true // unterminated at EOF
	}
	j := len(tok)
	if j > i && tok[j-1] == ')' {
		j--
	}
	for j > i && IsCSSSpace(tok[j-1]) && (j < 2 || tok[j-2] != '\\') {
		j--
	}
	return CSSURL{Start: i, End: j}, true
}

// IsCSSSpace reports CSS white space.
func IsCSSSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// CSSUnescape undoes CSS escapes (CSS Syntax §4.3.7): a backslash before a
// newline is dropped with it (a string continued on the next line), before
// one to six hex digits stands for that code point (followed by at most one
// white space character, which is dropped), and before any other character
// stands for that character.
func CSSUnescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	var s strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			s.WriteByte(c)
			continue
		}
		i++
		n := 0
		for n < 6 && i+n < len(b) && isHex(b[i+n]) {
			n++
		}
		switch {
		case n > 0:
			v, _ := strconv.ParseUint(string(b[i:i+n]), 16, 32)
			r := rune(v)
			if r == 0 || r > utf8.MaxRune || (r >= 0xd800 && r <= 0xdfff) {
				r = utf8.RuneError
			}
			s.WriteRune(r)
			i += n
			if i < len(b) && b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
				i++
			} else if i >= len(b) || !IsCSSSpace(b[i]) {
				i--
			}
		case b[i] == '\n' || b[i] == '\f':
		case b[i] == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		default:
			s.WriteByte(b[i])
		}
	}
	return s.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
