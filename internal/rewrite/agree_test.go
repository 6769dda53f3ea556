package rewrite

import (
	"fmt"
	"html"
	"os"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
)

// firstCalls returns the distinct URLs of calls with the kind of the first
// call for each, in order: extract's dedup rule.
func firstCalls(calls []call) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range calls {
		if !seen[c.abs] {
			seen[c.abs] = true
			fmt.Fprintf(&b, "%s %s\n", c.kind, c.abs)
		}
	}
	return b.String()
}

func extracted(t testing.TB, base, ct string, body []byte) string {
	t.Helper()
	links, err := extract.HTML(base, ct, body)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s %s\n", l.Kind, l.URL)
	}
	return b.String()
}

// TestAgreesWithExtract checks that Target is asked about the links extract
// reports, with the same kinds and in the same order: links on the goldens
// resolve to the URLs the mirror stores. Fragment-only and empty links,
// which extract reports as the page itself, are left out of the goldens.
func TestAgreesWithExtract(t *testing.T) {
	for _, g := range goldens {
		url := g.url
		if url == "" {
			url = page
		}
		body, err := os.ReadFile("testdata/" + g.name + ".html")
		if err != nil {
			t.Fatal(err)
		}
		var calls []call
		if _, err := HTML(body, url, g.ct, mirrorTarget(url, &calls)); err != nil {
			t.Fatal(err)
		}
		got, want := firstCalls(calls), extracted(t, url, g.ct, body)
		if g.name == "a" {
			want = strings.Replace(want, "page "+page+"\n", "", 1) // "#top" and "" resolve to the page
			got = strings.Replace(got, "page "+page+"\n", "", 1)
		}
		if got != want {
			t.Errorf("%s: target asked about:\n%sextract found:\n%s", g.name, got, want)
		}
	}
}

// FuzzAgree checks that srcset and refresh values, written with any
// character references, give Target the URLs extract finds, or are left
// alone.
func FuzzAgree(f *testing.F) {
	for _, s := range []string{"a.png 1x, b,c.png 2x", "x,, y (1, 2), z", " u", "5; url='n.html'", "0;URL=a b", "3, x"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, refresh bool) {
		body := `<img srcset="` + html.EscapeString(v) + `">`
		if refresh {
			body = `<meta http-equiv=refresh content="` + html.EscapeString(v) + `">`
		}
		var calls []call
		if _, err := HTML([]byte(body), page, "text/html; charset=utf-8", mirrorTarget(page, &calls)); err != nil {
			t.Fatal(err)
		}
		// A candidate "#f" or "" is the page to extract and left alone here;
		// a value whose quotes or separators are references may be left alone.
		self := func(s string) string {
			s = strings.ReplaceAll(s, "requisite "+page+"\n", "")
			return strings.ReplaceAll(s, "page "+page+"\n", "")
		}
		got, want := self(firstCalls(calls)), self(extracted(t, page, "text/html; charset=utf-8", []byte(body)))
		if got != want && !(got == "" && strings.ContainsAny(v, "&\"'")) {
			t.Errorf("%s: target asked about:\n%sextract found:\n%s", body, got, want)
		}
	})
}
