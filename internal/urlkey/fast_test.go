package urlkey

import "testing"

func TestAlreadyCanonical(t *testing.T) {
	for s, want := range map[string]bool{
		"https://ru.wikipedia.org/wiki/%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0_1": true,
		"http://example.com/":           true,
		"http://example.com:8080/a?b=c": true,
		"http://example.com/a/./b":      false,
		"http://example.com/a/%2e%2e/b": false,
		"http://Example.com/":           false,
		"http://example.com:80/":        false,
		"http://example.com":            false,
		"http://127.0.0.1/":             true,
		"http://127.0.0.1:8080/a":       true,
		"http://127.0.0.01/":            false,
		"http://127.0.0.256/":           false,
		"http://127.1/":                 false,
		"http://1.2.3.4.5/":             false,
		"http://xn--e1afmkfd.xn--p1ai/": false,
		"http://example.com/a b":        false,
		"http://example.com/a#f":        false,
		"http://user@example.com/":      false,
		"http://example.com/a\\b":       false,
		"http://example.com/%zz":        false,
		"ftp://example.com/":            false,
	} {
		if got := alreadyCanonical(s); got != want {
			t.Errorf("alreadyCanonical(%q) = %v, want %v", s, got, want)
		}
	}
}

// Whatever the fast path accepts, the WHATWG canonicaliser returns
// unchanged: the fast path decides nothing on its own.
func FuzzAlreadyCanonical(f *testing.F) {
	for _, s := range []string{"http://a.b/c", "https://x.org:8443/p?q=1&r=%41", "http://a-b.c/%D0%9C/../x", "http://a.b/./", "http://a.b/?%2e", "http://127.0.0.1:80/", "http://10.0.0.255/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !alreadyCanonical(s) {
			return
		}
		u, err := canon.Parse(s)
		if err != nil {
			t.Fatalf("fast path accepted %q, the parser rejects it: %v", s, err)
		}
		if got, err := finish(u, s); err != nil || got != s {
			t.Fatalf("fast path accepted %q, the parser gives %q, %v", s, got, err)
		}
	})
}
