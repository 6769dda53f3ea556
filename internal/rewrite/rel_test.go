package rewrite

import "testing"

func TestRel(t *testing.T) {
	tests := []struct{ from, to, want string }{
		// The examples of the doc comment.
		{"h/a/b.html", "h/a/c.html", "c.html"},
		{"h/a/b.html", "h/index.html", "../index.html"},
		{"h/x.html", "g:81/y.html", "../g:81/y.html"},
		{"h/index.html", "h/index.html?page=2.html", "index.html%3Fpage=2.html"},
		// Same file, same directory, deeper, shallower, other host.
		{"h/a/b.html", "h/a/b.html", "b.html"},
		{"h/index.html", "h/style.css", "style.css"},
		{"h/index.html", "h/a/b/c.png", "a/b/c.png"},
		{"h/a/b/c/d.html", "h/x.html", "../../../x.html"},
		{"h/a/b/c/d.html", "h/a/y/z.html", "../../y/z.html"},
		{"h/a/index.html", "g/a/index.html", "../../g/a/index.html"},
		{"h/a/b.html", "h/a", "../a"},
		{"h/a", "h/a/b.html", "a/b.html"},
		// Escaping.
		{"h/index.html", "h/100%.html", "100%25.html"},
		{"h/index.html", "h/p.php?id=1&x=2.html", "p.php%3Fid=1&x=2.html"},
		{"h/index.html", "h/c#.html", "c%23.html"},
		{"h/index.html", "h/my file.pdf", "my%20file.pdf"},
		{"h/index.html", "h/a b/c?d#e%f.html", "a%20b/c%3Fd%23e%25f.html"},
		{"h/index.html", "h/статья.html", "%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F.html"},
		{"h/index.html", `h/a\b"<>|.html`, "a%5Cb%22%3C%3E%7C.html"},
		// ':' in the first segment of the reference.
		{"h/index.html", "h/a:b.html", "./a:b.html"},
		{"h/index.html", "h/a:b/c.html", "./a:b/c.html"},
		{"h/x/index.html", "h/a:b.html", "../a:b.html"},
		{"h/index.html", "h/a/b:c.html", "a/b:c.html"},
		{"index.html", "g:81/y.html", "./g:81/y.html"},
		{"g:81/index.html", "g:81/y.html", "y.html"},
	}
	for _, tt := range tests {
		if got := Rel(tt.from, tt.to); got != tt.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
		}
	}
}
