package htmlurl

import (
	"strings"
	"testing"
)

func TestCSSURLs(t *testing.T) {
	tests := []struct {
		css  string
		want []string // each URL as quote + text + kind
	}{
		{`a{background:url(x.png)}`, []string{"x.png"}},
		{`a{background:url( "x y.png" )}`, []string{`"x y.png`}},
		{`a{background:URL('x')}`, []string{`'x`}},
		{`@import "a.css"; @import url(b.css) print; @IMPORT 'c.css';`, []string{`"a.css @import`, `b.css @import`, `'c.css @import`}},
		{`@import /* c */ "a.css";`, []string{`"a.css @import`}},
		{`@media print { a { content: "url(not)" } }`, nil},
		{`/* url(no) */ a{}`, nil},
		{`a{b:image-set("1.png" 1x, url(2.png) 2x, "3.png" 3x)}`, []string{`"1.png`, "2.png", `"3.png`}},
		{`a{b:image-set(linear-gradient("x"), "1.png")}`, []string{`"1.png`}},
		{`a{b:url(x`, []string{"x"}},
		{`a{b:url("x`, []string{`"x`}},
		{`a{b:url(a b)}`, nil}, // a bad url token
		{`a{b:\75 rl(x)}`, []string{"x"}},
		{`@import \75 rl( "q.css" );`, []string{`"q.css @import`}},
		{`a{b:\55RL(a b)}`, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, u := range CSSURLs([]byte(tt.css)) {
			s := tt.css[u.Start:u.End]
			if u.Quote != 0 {
				s = string(u.Quote) + s
			}
			if u.Import {
				s += " @import"
			}
			got = append(got, s)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: got %q, want %q", tt.css, got, tt.want)
		}
	}
}

func TestCSSUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`a\ b`:        "a b",
		`caf\e9 .png`: "café.png",
		`caf\0000e9x`: "caféx",
		`\(\)`:        "()",
		"a\\\nb":      "ab",
		`\0`:          "\uFFFD",
		`\d800`:       "\uFFFD",
		`x\`:          `x\`,
	} {
		if got := CSSUnescape([]byte(in)); got != want {
			t.Errorf("CSSUnescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCSSURLs checks that the URLs found are in order, inside the text,
// apart from each other, and that unescaping never fails.
func FuzzCSSURLs(f *testing.F) {
	for _, s := range []string{"url(", "@import'", "url(\"a\\", "image-set(\"a\" 1x", "url(a b)", `\75rl(x)`, "a{b:url(x)}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		last := 0
		for _, u := range CSSURLs(b) {
			if u.Start < last || u.End < u.Start || u.End > len(b) {
				t.Fatalf("span %+v after %d in %d bytes", u, last, len(b))
			}
			last = u.End
			CSSUnescape(b[u.Start:u.End])
		}
	})
}
