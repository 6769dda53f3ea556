package rewrite

import "testing"

func TestCSSCharset(t *testing.T) {
	for _, tt := range []struct{ name, ct, in, want string }{
		{"header charset", "text/css; charset=utf-8", "p{}", "@charset \"utf-8\";\np{}"},
		{"label normalised", "text/css; charset=cp1251", "p{}", "@charset \"windows-1251\";\np{}"},
		{"no charset", "text/css", "p{}", "p{}"},
		{"has @charset", "text/css; charset=utf-8", `@charset "koi8-r"; p{}`, `@charset "koi8-r"; p{}`},
		{"bom", "text/css; charset=utf-8", "\ufeffp{}", "\ufeffp{}"},
		{"utf-16", "text/css; charset=utf-16le", "p\x00", "p\x00"},
		{"unknown", "text/css; charset=x-nonsense", "p{}", "p{}"},
		{"bad header", "text/css; charset", "p{}", "p{}"},
	} {
		if got := string(CSSCharset([]byte(tt.in), tt.ct)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
