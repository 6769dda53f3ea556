package urlkey

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"http://Example.COM/", "http://example.com/"},
		{"HTTP://example.com", "http://example.com/"},
		{"http://example.com:80/a", "http://example.com/a"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:8080/a", "http://example.com:8080/a"},
		{"http://example.com/a#frag", "http://example.com/a"},
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/a/%2e%2E/c", "http://example.com/c"},
		{"http://user:pw@example.com/", "http://example.com/"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"http://example.com/?b=1&a=2", "http://example.com/?b=1&a=2"},
		{"http://example.com/a%2Fb", "http://example.com/a%2Fb"},
		{"http://пример.рф/", "http://xn--e1afmkfd.xn--p1ai/"},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"},
		{"  http://example.com/  ", "http://example.com/"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// Idempotent: the canonical form is its own canonical form.
		if again, err := Parse(got); err != nil || again != got {
			t.Errorf("Parse(Parse(%q)) = %q, %v; want %q", tt.in, again, err, got)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{
		"mailto:a@example.com",
		"javascript:alert(1)",
		"ftp://example.com/",
		"file:///etc/passwd",
		"/relative",
		"http://",
		"http://example.com/" + strings.Repeat("a", MaxLen),
	} {
		if got, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %q, want error", in, got)
		}
	}
	if _, err := Parse("ftp://x/"); !errors.Is(err, ErrScheme) {
		t.Errorf("ftp: err = %v, want ErrScheme", err)
	}
	// The usual mistake, a URL without its scheme, is said plainly, not
	// in the parser's three lines.
	for _, in := range []string{"example.org/page", "127.0.0.1:8080/", "localhost:8080/a", "localhost:8080", " example.org:80/x"} {
		if _, err := Parse(in); err == nil || err.Error() != fmt.Sprintf("urlkey: %q has no scheme (http:// or https://)", in) {
			t.Errorf("%s: err = %v, want that it has no scheme", in, err)
		}
	}
	for _, in := range []string{"mailto:a@example.org", "ftp://x/", "javascript:void(0)"} { // a scheme, not ours
		if _, err := Parse(in); !errors.Is(err, ErrScheme) {
			t.Errorf("%s: err = %v, want ErrScheme", in, err)
		}
	}
	for _, in := range []string{"http:/", "http:example.org:x:/"} { // a scheme, mangled: the parser says what is wrong
		if _, err := Parse(in); err != nil && strings.Contains(err.Error(), "has no scheme") {
			t.Errorf("%s: err = %v, want the parser's words", in, err)
		}
	}
}

func TestResolve(t *testing.T) {
	base := "http://example.com/dir/page"
	tests := []struct{ ref, want string }{
		{"other", "http://example.com/dir/other"},
		{"../up", "http://example.com/up"},
		{"/abs?q=1#x", "http://example.com/abs?q=1"},
		{"//other.org/p", "http://other.org/p"},
		{"https://EXAMPLE.com:443/", "https://example.com/"},
		{"?q", "http://example.com/dir/page?q"},
		{"\\back\\slash", "http://example.com/back/slash"},
	}
	for _, tt := range tests {
		got, err := Resolve(base, tt.ref)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
	if _, err := Resolve(base, "mailto:x@y"); err == nil {
		t.Error("Resolve(mailto) succeeded")
	}
}

func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"http://example.com/":          "example.com",
		"https://example.com:8443/a?b": "example.com:8443",
		"http://127.0.0.1:80?x":        "127.0.0.1:80",
	} {
		if got := Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"http://a/", "http://A:80/./b/../c#d", "https://x/%2e%2e/", "http://[::1]:8080/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(got)
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", s, got, again, err)
		}
		if strings.ContainsAny(got, " \n\t\r#") {
			t.Fatalf("canonical %q holds a space, newline or fragment", got)
		}
	})
}
