package rewrite

import (
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/htmlurl"
)

// TestStyleOnOddTagNames: a style attribute's URL is rewritten whatever
// the tag's name, also one the tokenizer must decode itself (a NUL in it
// becomes U+FFFD) or lower-case.
func TestStyleOnOddTagNames(t *testing.T) {
	target := func(abs string, _ htmlurl.Kind) (string, bool) { return "LOCAL", true }
	for _, body := range []string{
		`<div style="background:url(b.png)">x</div>`,
		`<DIV style="background:url(b.png)">x</DIV>`,
		"<x\x00y style=\"background:url(b.png)\">x",
		"<x\x00y\tstyle=\"background:url(b.png)\"/>",
	} {
		out, err := HTML([]byte(body), page, "text/html; charset=utf-8", target)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "url(LOCAL)") || strings.Contains(string(out), "b.png") {
			t.Errorf("%q → %q: the style's URL is not rewritten", body, out)
		}
	}
}
