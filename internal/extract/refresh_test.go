package extract

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
		got, ok := refreshURL(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("refreshURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzRefreshURL(f *testing.F) {
	for _, s := range []string{"5; url=a", "0;URL='b'", "3, c", "0; urx", ".;u"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := refreshURL(s)
		if ok != (u != "") || u != strings.TrimSpace(u) || !strings.Contains(s, u) {
			t.Errorf("refreshURL(%q) = %q, %v", s, u, ok)
		}
	})
}
