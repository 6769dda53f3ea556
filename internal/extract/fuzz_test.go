package extract

import (
	"testing"

	"github.com/spider-mirror/spider/internal/urlkey"
)

func FuzzHTML(f *testing.F) {
	seeds := []struct{ ct, body string }{
		{"", `<a href="x">`},
		{"text/html; charset=windows-1251", "<a href=\"/\xf1\xf2?q=\xef\">"},
		{"", `<meta charset=koi8-r><base href="/b/"><img srcset="a,b 1x, c 2x" src=d>`},
		{"text/html; charset=shift_jis", "<a href=\"/\x93\xfa?\x96\x7b\">"},
		{"text/html; charset=iso-2022-jp", "<a href=\"/?q=\x1b$BF|\x1b(B\">"},
		{"", `<noscript><img src=n></noscript><meta http-equiv=refresh content="0;url=r">`},
		{"", "<div><div><div><a href=//h/p>"},
		{"", "\xfe\xff\x00<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00x\x00>"},
		{"", `<a href="javascript:x"><a href="mailto:y"><a href="#f"><a href="">`},
	}
	for _, s := range seeds {
		f.Add(s.ct, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		links, err := HTML(page, ct, body)
		if err != nil {
			t.Fatalf("HTML: %v", err)
		}
		if len(links) > MaxLinks {
			t.Errorf("%d links", len(links))
		}
		seen := map[string]bool{}
		for _, l := range links {
			if u, err := urlkey.Parse(l.URL); err != nil || u != l.URL {
				t.Errorf("link %q: urlkey.Parse = %q, %v", l.URL, u, err)
			}
			if seen[l.URL] {
				t.Errorf("link %q twice", l.URL)
			}
			seen[l.URL] = true
			if l.Kind < Page || l.Kind > Style || l.Tag == "" || l.Attr == "" {
				t.Errorf("link %+v", l)
			}
		}
	})
}
