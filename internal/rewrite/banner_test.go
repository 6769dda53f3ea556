package rewrite

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestBanner(t *testing.T) {
	gone := time.Date(2026, 11, 21, 23, 40, 5, 0, time.UTC)
	const u = "http://example.com/topic/1?a=1&b=<2>"
	tests := []struct{ name, in, before, after string }{
		{"after body", "<html><head><title>t</title></head><body class=x><p>text</p></body></html>", `<body class=x>`, `<p>text</p>`},
		{"no body tag", "<meta charset=utf-8><p>text", `<p>text`, ``},
		{"body in a comment first", "<!-- <body> --><BODY>x", `<!-- <body> --><BODY>`, `x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Banner([]byte(tt.in), u, gone)
			s := string(out)
			i, j := strings.Index(s, bannerStart), strings.Index(s, bannerEnd)
			if i < 0 || j < i {
				t.Fatalf("no banner in %s", s)
			}
			if !strings.HasSuffix(s[:i], tt.before) || !strings.HasPrefix(s[j+len(bannerEnd):], tt.after) {
				t.Errorf("banner misplaced: %s", s)
			}
			banner := s[i:j]
			for _, want := range []string{"removed from the site", "2026-11-21 23:40 UTC", `href="http://example.com/topic/1?a=1&amp;b=&lt;2&gt;"`, `id="spider-archived"`} {
				if !strings.Contains(banner, want) {
					t.Errorf("banner lacks %q: %s", want, banner)
				}
			}
			if !HasBanner(out) || HasBanner([]byte(tt.in)) {
				t.Error("HasBanner wrong")
			}
			if got := Unbanner(out); !bytes.Equal(got, []byte(tt.in)) {
				t.Errorf("Unbanner gave %q, want the page back", got)
			}
			again := Banner(out, u, gone.Add(time.Hour))
			if strings.Count(string(again), bannerStart) != 1 || !strings.Contains(string(again), "2026-11-22 00:40 UTC") {
				t.Errorf("second banner not in place of the first: %s", again)
			}
		})
	}
	utf16 := []byte("\xff\xfe<\x00b\x00>\x00")
	if got := Banner(utf16, u, gone); !bytes.Equal(got, utf16) {
		t.Errorf("UTF-16 page changed: %q", got)
	}
}
