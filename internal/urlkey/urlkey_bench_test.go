package urlkey

import "testing"

// BenchmarkParse canonicalises URLs as the list and fetch receive them:
// canonical already (the fast path), and not (the WHATWG parser).
func BenchmarkParse(b *testing.B) {
	for _, tt := range []struct{ name, raw string }{
		{"canonical", "http://127.0.0.1:8080/topic/12-amber-anchor?page=2"},
		{"parser", "HTTP://Example.COM:80/a/./b/../c%7e?q=%41"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(tt.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResolve resolves the links of a page: an absolute path, a
// query, a relative path (fast paths), and a reference with dot segments
// (the parser).
func BenchmarkResolve(b *testing.B) {
	const base = "http://127.0.0.1:8080/topic/12-amber-anchor"
	for _, tt := range []struct{ name, ref string }{
		{"path", "/forum/?page=3"},
		{"query", "?page=3"},
		{"relative", "12-amber-anchor/replies"},
		{"parser", "../topic/./13-cedar"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Resolve(base, tt.ref); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
