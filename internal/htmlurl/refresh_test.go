package htmlurl

import (
	"strings"
	"testing"
)

func TestRefreshURL(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"5; url=page.html", "page.html", true},
		{"5;URL='page.html'", "page.html", true},
		{`0; url="a b.html" trailing`, "a b.html", true},
		{"0;url = x", "x", true},
		{"  7 ;  URL  =  spaced.html  ", "spaced.html", true},
		{"3, next.html", "next.html", true},
		{"3 next.html", "next.html", true},
		{"0; 'quoted.html'", "quoted.html", true},
		{".5; url=z", "z", true},
		{"1.5.5;url=z", "z", true},
		{"0; urban.html", "urban.html", true},
		{"0; url", "url", true},
		{"0; url x", "url x", true},
		{"0; url='unterminated", "unterminated", true},
		{"0;url=http://example.com/?a=1;b=2", "http://example.com/?a=1;b=2", true},
		{"30", "", false},
		{"30;", "", false},
		{"0; url=", "", false},
		{"0; url=''", "", false},
		{"", "", false},
		{"abc", "", false},
		{"; url=x", "", false},
		{"5x; url=y", "", false},
	}
	for _, tt := range tests {
		sp, ok := RefreshURL(tt.in)
		got := ""
		if ok {
			got = tt.in[sp.Start:sp.End]
		}
		if got != tt.want || ok != tt.ok {
			t.Errorf("RefreshURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRefreshPositions checks spans where the URL text stands earlier in
// the content too.
func TestRefreshPositions(t *testing.T) {
	tests := []struct {
		in   string
		want Span
	}{
		{"1; url=1", Span{7, 8}},
		{"0;url='url'", Span{7, 10}},
		{"0, u ", Span{3, 4}},
		{"0; url = ' x ' ", Span{11, 12}},
	}
	for _, tt := range tests {
		if got, ok := RefreshURL(tt.in); !ok || got != tt.want {
			t.Errorf("RefreshURL(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
}

func FuzzRefreshURL(f *testing.F) {
	for _, s := range []string{"5; url=a", "0;URL='b'", "3, c", "0; urx", ".;u"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, ok := RefreshURL(s)
		if !ok {
			return
		}
		if sp.Start < 0 || sp.End <= sp.Start || sp.End > len(s) {
			t.Fatalf("RefreshURL(%q) = %v", s, sp)
		}
		if u := s[sp.Start:sp.End]; u != strings.TrimSpace(u) {
			t.Errorf("RefreshURL(%q) = %q, %v", s, u, ok)
		}
	})
}
