package urlkey

import (
	"strings"
	"testing"
)

func TestResolveFast(t *testing.T) {
	const base = "http://127.0.0.1:8080/topic/12-slug?x=1"
	for _, tt := range []struct {
		ref, want string // want "" = left to the parser
	}{
		{"/forum/", "http://127.0.0.1:8080/forum/"},
		{"/a?b=c#top", "http://127.0.0.1:8080/a?b=c"},
		{"?page=3", "http://127.0.0.1:8080/topic/12-slug?page=3"},
		{"#top", "http://127.0.0.1:8080/topic/12-slug?x=1"},
		{"", "http://127.0.0.1:8080/topic/12-slug?x=1"},
		{"12-slug/replies", "http://127.0.0.1:8080/topic/12-slug/replies"},
		{"../12-slug", "http://127.0.0.1:8080/12-slug"},
		{"../media/1.png", "http://127.0.0.1:8080/media/1.png"},
		{"./", "http://127.0.0.1:8080/topic/"},
		{".", "http://127.0.0.1:8080/topic/"},
		{"..", "http://127.0.0.1:8080/"},
		{"../../../a?b", "http://127.0.0.1:8080/a?b"},
		{"a/./b/../c/.", "http://127.0.0.1:8080/topic/a/c/"},
		{"/x/../y/", "http://127.0.0.1:8080/y/"},
		{"..a/b", "http://127.0.0.1:8080/topic/..a/b"},
		{".../b", "http://127.0.0.1:8080/topic/.../b"},
		{"a/.%2e/b", ""},
		{"/x/%2e/../y", ""},
		{"./a:b", "http://127.0.0.1:8080/topic/a:b"},
		{"//other.example/", ""},
		{"mailto:a@b", ""},
		{"https://example.org/", ""},
		{"/a b", ""},
		{" /a", ""},
		{"/a/%2e%2e/b", ""},
		{"/caf\u00e9", ""},
		{"/a\\b", ""},
	} {
		got, ok := resolveFast(base, tt.ref)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("resolveFast(%q) = %q, %v; want %q", tt.ref, got, ok, tt.want)
		}
		if tt.want == "" {
			continue
		}
		if slow, err := canon.ParseRef(base, tt.ref); err != nil || slow.Href(true) != got {
			t.Errorf("parser resolves %q to %v, %v; fast path %q", tt.ref, slow, err, got)
		}
	}
}

// Whatever the fast path resolves, the WHATWG parser resolves to the same
// canonical URL: the fast path decides nothing on its own.
func FuzzResolveFast(f *testing.F) {
	for _, s := range [][2]string{
		{"http://a.b/c/d?q", "/x"}, {"https://x.org:8443/p/", "?page=2"}, {"http://127.0.0.1:1/t/1-a", "1-a/replies"},
		{"http://a.b/", "#f"}, {"http://a.b/c", "x:y"}, {"http://a.b/c", "a/b:c"}, {"http://a.b/c", "/%41?%zz"},
		{"http://a.b/c/d/e", "../../f/./g/.."}, {"http://a.b/c/", "./..?x=."}, {"http://a.b/", "/../a/%2e./b"}, {"https://h.io:8443/x/y/z", "/x./%2e/.././/#"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, rawBase, ref string) {
		base, err := Parse(rawBase)
		if err != nil {
			return
		}
		got, ok := resolveFast(base, ref)
		if !ok {
			return
		}
		u, err := canon.ParseRef(base, strings.TrimSpace(ref))
		if err != nil {
			t.Fatalf("fast path resolved %q against %q to %q, the parser rejects it: %v", ref, base, got, err)
		}
		if want, err := finish(u, ref); err != nil || want != got {
			t.Fatalf("fast path resolved %q against %q to %q, the parser gives %q, %v", ref, base, got, want, err)
		}
	})
}
