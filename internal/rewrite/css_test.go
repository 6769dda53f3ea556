package rewrite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spider-mirror/spider/internal/htmlurl"
)

// TestCSSCases is a table of style attributes and <style> texts in a page
// at http://example.com/dir/page.html, and what they become.
func TestCSSCases(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"entity quotes are left alone", `<p style="background:url(&quot;/x.png&quot;)">`, `<p style="background:url(&quot;/x.png&quot;)">`},
		{"ampersand in the reference", `<p style="background:url(/x.png?a=1&amp;b=2)">`, `<p style="background:url(../x.png%3Fa=1&amp;b=2)">`},
		{"quote in a single-quoted url", `<style>p{background:url('/it&apos;s.png')}</style>`, `<style>p{background:url('../it&apos;s.png')}</style>`},
		{"escaped quote becomes percent", `<style>p{background:url('/it\'s.png')}</style>`, `<style>p{background:url('../it\'s.png')}</style>`},
		{"paren unquoted", `<style>p{background:url(/a\(b\).png)}</style>`, `<style>p{background:url(../a\(b\).png)}</style>`},
		{"off-site stays", `<style>p{background:url(//other.example.org/x.png)}</style>`, `<style>p{background:url(//other.example.org/x.png)}</style>`},
		{"fragment only stays", `<style>p{filter:url(#f)}</style>`, `<style>p{filter:url(#f)}</style>`},
		{"empty stays", `<style>p{background:url()}</style>`, `<style>p{background:url()}</style>`},
		{"style in noscript", `<noscript><style>p{background:url(/n.png)}</style></noscript>`, `<noscript><style>p{background:url(../n.png)}</style></noscript>`},
		{"uppercase URL(", `<style>p{background:URL(/u.png)}</style>`, `<style>p{background:URL(../u.png)}</style>`},
		{"style attribute with src", `<img src="/i.png" style="background:url(/b.png)">`, `<img src="../i.png" style="background:url(../b.png)">`},
		{"not css text", `<script>var s="url(/x.png)"</script><p>url(/y.png)</p>`, `<script>var s="url(/x.png)"</script><p>url(/y.png)</p>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []call
			got, err := HTML([]byte(tt.in), page, "text/html; charset=utf-8", mirrorTarget(page, &calls, "example.com"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestCSSEscape checks that a reference with CSS-special bytes is written
// so that the CSS tokenizer reads it back.
func TestCSSEscape(t *testing.T) {
	for _, ref := range []string{"a.png", `a(b).png`, `it's".png`, `back\slash`, "sp ace"} {
		for _, q := range []byte{0, '"', '\''} {
			var css string
			if q == 0 {
				css = "p{background:url(" + cssEscape(ref, q) + ")}"
			} else {
				css = "p{background:url(" + string(q) + cssEscape(ref, q) + string(q) + ")}"
			}
			us := htmlurl.CSSURLs([]byte(css))
			if len(us) != 1 {
				t.Errorf("%q: %d urls in %s", ref, len(us), css)
				continue
			}
			if got := htmlurl.CSSUnescape([]byte(css[us[0].Start:us[0].End])); got != ref {
				t.Errorf("%q quoted %q: read back %q from %s", ref, q, got, css)
			}
		}
	}
}

// FuzzCSS checks that rewriting a style sheet changes nothing but its
// URLs, whatever the bytes, and that every reference it writes reads back
// through the CSS tokenizer as the reference Target gave.
func FuzzCSS(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.css")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"url(", "@import'", "url(\"a\\", "image-set(\"a\" 1x", "url(a b)", "\\75rl(x)", "url(\x00)", "@import url(x) ;"} {
		f.Add([]byte(s))
	}
	const base = "http://example.com/css/sheet.css"
	f.Fuzz(func(t *testing.T, in []byte) {
		var calls []call
		out, err := CSS(in, base, mirrorTarget(base, &calls, "example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cssChanges("sheet", in, out); err != nil {
			t.Fatal(err)
		}
	})
}
