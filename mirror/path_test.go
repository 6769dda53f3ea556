package mirror

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/urlkey"
)

const (
	html = "text/html"
	css  = "text/css"
	png  = "image/png"
)

// canon returns the canonical form of raw, failing the test if it has none.
func canon(t testing.TB, raw string) string {
	t.Helper()
	u, err := urlkey.Parse(raw)
	if err != nil {
		t.Fatalf("urlkey.Parse(%q): %v", raw, err)
	}
	return u
}

var pathTests = []struct {
	url, typ, want string
}{
	// Root, directories, extensions.
	{"http://example.com/", html, "example.com/index.html"},
	{"http://Example.COM", "", "example.com/index.html"},
	{"http://example.com/docs/", html, "example.com/docs/index.html"},
	{"http://example.com/a/b/c", html, "example.com/a/b/c{}.html"},
	{"http://example.com/about", html, "example.com/about{}.html"},
	{"http://example.com/about", png, "example.com/about{}"},
	{"http://example.com/about", "", "example.com/about{}"},
	{"http://example.com/a/b.htm", html, "example.com/a/b.htm"},
	{"http://example.com/a/b.HTML", html, "example.com/a/b.HTML"},
	{"http://example.com/x.php", "Text/HTML; charset=utf-8", "example.com/x.php{}.html"},
	{"http://example.com/x", "application/xhtml+xml", "example.com/x{}.html"},
	{"http://example.com/s", css, "example.com/s{}.css"},
	{"http://example.com/s.css", css, "example.com/s.css"},
	{"http://example.com/s.css", html, "example.com/s.css{}.html"},
	{"http://example.com/logo.png", png, "example.com/logo.png"},
	// Queries.
	{"http://example.com/page.php?id=1&x=2", html, "example.com/page.php?id=1&x=2{}.html"},
	{"http://example.com/page.php?id=1&x=2", "", "example.com/page.php?id=1&x=2"},
	{"http://example.com/page.html?x=1", html, "example.com/page.html?x=1{}.html"},
	{"http://example.com/s.css?v=3", css, "example.com/s.css?v=3{}.css"},
	{"http://example.com/search?q=a+b", html, "example.com/search?q=a+b{}.html"},
	{"http://example.com/d/?q=1", "", "example.com/d/index.html?q=1"},
	{"http://example.com/d/?q=1", html, "example.com/d/index.html?q=1{}.html"},
	{"http://example.com/b?", "", "example.com/b?"},
	{"http://example.com/dl?f=a/b c", "", "example.com/dl?f=a%2Fb%2520c"},
	{`http://example.com/q?a\b`, "", "example.com/q?a%5Cb"},
	{"http://example.com/q?x=caf%C3%A9", "", "example.com/q?x=caf%25C3%25A9"},
	{"http://example.com/q?%00", "", "example.com/q?%2500"},
	// Hosts that would meet the mirror's own names at the root.
	{"http://.spider/", html, "%2Espider/index.html"},
	{"http://index.html/", html, "index%2Ehtml/index.html"},
	{"http://RECENT.HTML/x", "", "recent%2Ehtml/x{}"},
	{"http://.x.html/", "", "%2Ex%2Ehtml/index.html"},
	// Ports, IPv6, IDN.
	{"http://example.com:8080/x", "", "example.com:8080/x{}"},
	{"http://example.com:80/", "", "example.com/index.html"},
	{"https://example.com:443/", "", "example.com/index.html"},
	{"https://example.com:80/", "", "example.com:80/index.html"},
	{"http://[::1]:8080/", html, "[::1]:8080/index.html"},
	{"http://127.0.0.1:18089/about", html, "127.0.0.1:18089/about{}.html"},
	{"http://Müller.DE/", html, "xn--mller-kva.de/index.html"},
	// Percent-decoding of non-ASCII only.
	{"https://ru.wikipedia.org/wiki/Москва", html, "ru.wikipedia.org/wiki/Москва{}.html"},
	{"http://example.com/caf%C3%A9", "", "example.com/café{}"},
	{"http://example.com/caf%C3%A9.html", html, "example.com/café.html"},
	{"http://example.com/caf%c3%a9", "", "example.com/caf%c3%a9{}"},
	{"http://example.com/caf%C3%a9", "", "example.com/caf%C3%a9{}"},
	{"http://example.com/%41%2F%20", "", "example.com/%41%2F%20{}"},
	{"http://example.com/%F0%9F%98%80", "", "example.com/😀{}"},
	{"http://example.com/%%C3%A9", "", "example.com/%é{}"},
	{"http://example.com/%C3", "", "example.com/%C3{}"},
	{"http://example.com/%C3%A9%A9", "", "example.com/é%A9{}"},
	{"http://example.com/%C0%AF", "", "example.com/%C0%AF{}"},             // overlong '/'
	{"http://example.com/%ED%A0%80", "", "example.com/%ED%A0%80{}"},       // surrogate
	{"http://example.com/%E2%80%AEgpj", "", "example.com/%E2%80%AEgpj{}"}, // bidi override
	{"http://example.com/%E2%81%A6x", "", "example.com/%E2%81%A6x{}"},     // bidi isolate
	{"http://example.com/%EF%BB%BFx", "", "example.com/%EF%BB%BFx{}"},     // BOM
	{"http://example.com/%C2%85x", "", "example.com/%C2%85x{}"},           // C1 NEL
	{"http://example.com/a%C2%A0b", "", "example.com/a%C2%A0b{}"},         // no-break space
	{"http://example.com/a%E3%80%80b", "", "example.com/a%E3%80%80b{}"},   // ideographic space
	{"http://example.com/a%E2%80%8Bb", "", "example.com/a%E2%80%8Bb{}"},   // zero-width space
	// Hostile names.
	{"http://example.com/../../etc/passwd", "", "example.com/etc/passwd{}"},
	{"http://example.com/%2e%2e/%2E%2E/x", "", "example.com/x{}"},
	{"http://example.com/..%2f..%2fetc", "", "example.com/..%2f..%2fetc"},
	{"http://example.com/%2e%2e%5c%2e%2e%5cx", "", "example.com/%2e%2e%5c%2e%2e%5cx{}"},
	{`http://example.com/a\..\..\b`, "", "example.com/b{}"},
	{"http://example.com/x%00y", "", "example.com/x%00y{}"},
	{"http://example.com/x\x00y", "", "example.com/x%00y{}"},
	{"http://example.com//etc/passwd", "", "example.com/{empty}/etc/passwd{}"},
	{"http://example.com/a//b", "", "example.com/a/{empty}/b{}"},
	{"http://example.com///", "", "example.com/{empty}/{empty}/index.html"},
	{"http://example.com/C:/Windows/x", "", "example.com/C:/Windows/x{}"},
	{"http://example.com/.../x", "", "example.com/.../x{}"},
	{"http://example.com/.x/.htaccess", "", "example.com/.x/.htaccess"},
	{"http://example.com/%zz", "", "example.com/%zz{}"},
	{"http://example.com/%", "", "example.com/%{}"},
	{"http://example.com/a%7Bempty%7D", "", "example.com/a%7Bempty%7D{}"},
	{"http://example.com/CON/nul.txt", "", "example.com/CON/nul.txt"},
	{"http://../x", "", "%2E%2E/x{}"},
	{"http://./x", "", "%2E/x{}"},
	{"http://a..b/x", "", "a..b/x{}"},
	{"http://x/a b\tc", "", "x/a%20bc{}"},
}

func TestPath(t *testing.T) {
	for _, tt := range pathTests {
		u := canon(t, tt.url)
		got, err := Path(u, tt.typ)
		if err != nil {
			t.Errorf("Path(%q, %q): %v", u, tt.typ, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Path(%q, %q) = %q, want %q", u, tt.typ, got, tt.want)
		}
		checkURL(t, u)
	}
}

func TestPathLong(t *testing.T) {
	a200, a300 := strings.Repeat("a", 200), strings.Repeat("a", 300)
	cyr := strings.Repeat("%D0%96", 150) // Ж, 2 bytes once decoded
	tests := []struct {
		name, url, typ, prefix, ext string
	}{
		{"kept at 200", "http://h/" + a200, "", a200, ""},
		{"hashed", "http://h/" + a300, "", strings.Repeat("a", 203) + "~", ""},
		{"html ext kept", "http://h/" + a300, html, strings.Repeat("a", 198) + "~", ".html"},
		{"short ext kept", "http://h/" + a300 + ".tar.gz", "", strings.Repeat("a", 200) + "~", ".gz"},
		{"long ext dropped", "http://h/x." + a300, "", "x." + strings.Repeat("a", 201) + "~", ""},
		{"utf-8 boundary", "http://h/aa" + cyr, "", "aa" + strings.Repeat("Ж", 100) + "~", ""},
		{"long query", "http://h/p?" + a300, html, "p?" + strings.Repeat("a", 196) + "~", ".html"},
		{"long host", "http://" + strings.Repeat("b", 250) + ".com/", "", strings.Repeat("b", 199) + "~", ".com"},
	}
	for _, tt := range tests {
		u := canon(t, tt.url)
		p, err := Path(u, tt.typ)
		if err != nil {
			t.Fatalf("%s: Path: %v", tt.name, err)
		}
		checkPath(t, u, p)
		last := p[strings.LastIndexByte(p, '/')+1:]
		if tt.name == "long host" {
			last = p[:strings.IndexByte(p, '/')]
		}
		if !strings.HasPrefix(last, tt.prefix) || !strings.HasSuffix(last, tt.ext) {
			t.Errorf("%s: component %q, want prefix %q and ext %q", tt.name, last, tt.prefix, tt.ext)
		}
		if len(last) > maxName && (len(last) < 217 || len(last) > hashedLen) {
			t.Errorf("%s: hashed component is %d bytes, want 217..220", tt.name, len(last))
		}
		again, _ := Path(u, tt.typ)
		if again != p {
			t.Errorf("%s: Path is not deterministic: %q then %q", tt.name, p, again)
		}
	}
}

func TestPathRejects(t *testing.T) {
	for _, u := range []string{
		"", "ftp://example.com/", "HTTP://example.com/", "http://", "http:///x", "http://example.com",
		"http://example.com?x", "//example.com/", "/etc/passwd", "../x", "http://example.com/a b",
		"http://example.com/a#frag", "http://example.com/./a", "http://example.com/a/..",
		"http://example.com/a/../b", `http://example.com/a\b`, "http://example.com/caf\u00e9",
		"http://example.com/a\x00", "http://exa%2fmple.com/", "http://u@example.com/",
		"http://example.com/{empty}/x", "http://example.com/a\"b", "http://example.com/" + strings.Repeat("a", urlkey.MaxLen),
		"http://example.com/" + strings.Repeat("/", 1000), // 7 bytes for each empty segment: too long
	} {
		if p, err := Path(u, html); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Path(%q) = %q, %v; want ErrUnsafePath", clip(u), p, err)
		}
		if n := ReserveLen(u); n != 0 {
			t.Errorf("ReserveLen(%q) = %d, want 0", clip(u), n)
		}
	}
}

// TestPathDistinct is the collision table: each pair must map apart under
// the same media type, and neither path may be a directory of the other.
func TestPathDistinct(t *testing.T) {
	long := strings.Repeat("x", 250)
	for _, pair := range [][2]string{
		{"http://h/foo", "http://h/foo/bar"},
		{"http://h/a?x=1", "http://h/a?x=2"},
		{"http://h/a", "http://h/a?"},
		{"http://h/a%2Fb", "http://h/a/b"},
		{"http://h/caf%C3%A9", "http://h/caf%c3%a9"},
		{"http://h/caf%C3%A9", "http://h/caf%C3%a9"},
		{"http://h/%%C3%A9", "http://h/%25%C3%A9"},
		{"http://h/a//b", "http://h/a/%7Bempty%7D/b"},
		{"http://h/a//b", "http://h/a/b"},
		{"http://h/a?b/c", "http://h/a?b%2Fc"},
		{"http://h/a?b%", "http://h/a?b%25"},
		{"http://h/a?b.html", "http://h/a.html?b"},
		{"http://h/" + long + "1", "http://h/" + long + "2"},
		{"http://h/" + long[:200], "http://h/" + long[:199] + "~0123456789abcdef"},
		{"http://h:8080/", "http://h/"},
		{"https://h:80/", "http://h/"},
		{"http://../", "http://.../"},
		{"http://h/d/", "http://h/d/index.htm"},
		// What wget makes share one file, and issue 20's cases.
		{"http://h/d/", "http://h/d/index.html"},
		{"http://h/d/?q", "http://h/d/index.html?q"},
		{"http://h/a", "http://h/a.html"},
		{"http://h/a?x", "http://h/a?x.html"},
		{"http://h/a?x", "http://h/a?x%7B%7D.html"},
		{"http://h/s", "http://h/s.css"},
		{"http://h/d/", "http://h/d/index"},
		{"http://h/x", "http://h/x/y.html"},
		{"http://h/bin/report", "http://h/bin/report.html"},
		{"http://h/nul.txt", "http://h/nul.txt.html"},
		{"http://h/con", "http://h/con.html"},
	} {
		u1, u2 := canon(t, pair[0]), canon(t, pair[1])
		if u1 == u2 {
			t.Fatalf("test bug: %q and %q are one URL", pair[0], pair[1])
		}
		for _, typ := range []string{html, css, png, ""} {
			p1, err1 := Path(u1, typ)
			p2, err2 := Path(u2, typ)
			if err1 != nil || err2 != nil {
				t.Fatalf("Path: %v, %v", err1, err2)
			}
			if p1 == p2 {
				t.Errorf("%q and %q as %q both map to %q", u1, u2, typ, p1)
			}
		}
	}
	// A file and a directory of one name: /foo as any type, and
	// /foo/bar, can both be stored.
	for _, typ := range []string{html, css, png, ""} {
		p1, _ := Path(canon(t, "http://h/foo"), typ)
		p2, _ := Path(canon(t, "http://h/foo/bar"), html)
		if strings.HasPrefix(p2, p1+"/") {
			t.Errorf("%q is a directory of %q", p1, p2)
		}
	}
}

// TestPathAliases checks that the documented exceptions are the real ones.
func TestPathAliases(t *testing.T) {
	for _, tt := range []struct{ a, b, typ string }{
		{"http://h/p", "https://h/p", png},
		{"http://h/d/", "https://h/d/", html},
	} {
		a, b := canon(t, tt.a), canon(t, tt.b)
		pa, _ := Path(a, tt.typ)
		pb, _ := Path(b, tt.typ)
		if pa != pb || aliasKey(a, tt.typ) != aliasKey(b, tt.typ) {
			t.Errorf("%q and %q as %q: %q and %q, want one path", a, b, tt.typ, pa, pb)
		}
	}
}

func TestReserveLen(t *testing.T) {
	types := []string{html, "application/xhtml+xml", css, png, "", "text/plain", "TEXT/CSS;x=y"}
	for _, tt := range pathTests {
		u := canon(t, tt.url)
		n, longest := ReserveLen(u), 0
		for _, l := range []Layout{{}, {FoldCase: true}} {
			for _, typ := range types {
				p, err := l.Path(u, typ)
				if err != nil {
					t.Fatalf("Path(%q, %q): %v", u, typ, err)
				}
				longest = max(longest, len(p))
			}
		}
		if n != longest {
			t.Errorf("ReserveLen(%q) = %d, longest path %d", u, n, longest)
		}
	}
	// Appending .html can push a component over 200 bytes and so lengthen
	// the path by more than the extension.
	u := canon(t, "http://h/"+strings.Repeat("a", 196))
	p, _ := Path(u, html)
	if n := ReserveLen(u); n != len(p) || n <= len(u) {
		t.Errorf("ReserveLen(%q) = %d, html path %d bytes", u, n, len(p))
	}
}

// TestDocExamples keeps the tables in the package doc and Path's doc true.
func TestDocExamples(t *testing.T) {
	for file, least := range map[string]int{"mirror.go": 5, "path.go": 14} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(src), "\n") {
			f := strings.Fields(strings.TrimPrefix(line, "//\t"))
			if !strings.HasPrefix(line, "//\thttp") || len(f) != 3 {
				continue
			}
			typ := strings.Trim(f[1], `"`)
			if got, err := Path(f[0], typ); err != nil || got != f[2] {
				t.Errorf("%s: Path(%q, %q) = %q, %v; doc says %q", file, f[0], typ, got, err, f[2])
			}
			n++
		}
		if n < least {
			t.Errorf("%s: found %d doc examples, want the whole table (%d)", file, n, least)
		}
	}
}
