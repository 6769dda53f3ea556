package mirror

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spider-mirror/spider/internal/urlkey"
)

var fuzzTypes = []string{html, css, png, ""}

// FuzzPath checks the safety properties of every path Path returns, even
// for a string that is not canonical, and, for URLs that urlkey accepts,
// that Path succeeds, that ReserveLen bounds it, and that distinct URLs get
// distinct paths under one media type except for the documented aliases
// (aliasKey).
func FuzzPath(f *testing.F) {
	for _, tt := range pathTests {
		f.Add(tt.url, "http://example.com/index.html")
	}
	f.Add("http://h/d/", "http://h/d/index")
	f.Add("http://h/a?x", "https://h/a?x.html")
	f.Add("http://h/s", "http://h/s.css")
	f.Add("http://h/a%2Fb", "http://h/a/b")
	f.Add("http://h/caf%C3%A9", "http://h/caf%c3%a9")
	f.Add("http://h//", "http://h/%7Bempty%7D/")
	f.Add("http://h/"+strings.Repeat("é", 120), "http://h/"+strings.Repeat("é", 121))
	f.Add("http://h/About", "http://h/about")
	f.Add("http://h/CON.txt", "http://h/con.txt")
	f.Add("http://h/a.", "http://h/a")
	f.Add("http://h/%C5%BF", "http://h/s")
	f.Add("http://h/x?Q=1", "http://h/x?q=1")
	f.Add("http://h/x", "http://h/x/y.html")
	f.Add("http://h/a", "http://h/a.html")
	f.Add("http://h/d/index.html?q", "http://h/d/?q")
	f.Fuzz(func(t *testing.T, a, b string) {
		// Whatever Path accepts, canonical or not, is safe.
		for _, typ := range fuzzTypes {
			if p, err := Path(a, typ); err == nil {
				checkPath(t, a, p)
			}
		}
		u1, err1 := urlkey.Parse(a)
		u2, err2 := urlkey.Parse(b)
		if err1 == nil {
			checkURL(t, u1)
		}
		if err2 == nil {
			checkURL(t, u2)
		}
		if err1 != nil || err2 != nil || u1 == u2 {
			return
		}
		for _, typ := range fuzzTypes {
			p1, err1 := Path(u1, typ)
			p2, err2 := Path(u2, typ)
			if err1 != nil || err2 != nil {
				continue // too long; checkURL checked why
			}
			checkNotDir(t, p1, p2)
			checkNotDir(t, p2, p1)
			k1, k2 := aliasKey(u1, typ), aliasKey(u2, typ)
			if (p1 == p2) != (k1 == k2) {
				t.Errorf("%q and %q as %q: paths %q and %q, alias keys %q and %q",
					u1, u2, typ, p1, p2, k1, k2)
			}
			// Folding case, the FoldCase layout still tells them apart.
			f1, err1 := Layout{FoldCase: true}.Path(u1, typ)
			f2, err2 := Layout{FoldCase: true}.Path(u2, typ)
			if err1 != nil || err2 != nil {
				continue
			}
			if (foldKey(f1) == foldKey(f2)) != (k1 == k2) {
				t.Errorf("%q and %q as %q: FoldCase paths %q and %q, alias keys %q and %q",
					u1, u2, typ, f1, f2, k1, k2)
			}
		}
	})
}

// checkNotDir checks that the file file is not a directory of path p, but
// where Path's doc says it may be: a URL's own name with a '.'.
func checkNotDir(t *testing.T, file, p string) {
	t.Helper()
	name := file[strings.LastIndexByte(file, '/')+1:]
	if strings.HasPrefix(p, file+"/") && (strings.Contains(name, mark) || !strings.Contains(name, ".")) {
		t.Errorf("file %q is a directory of %q", file, p)
	}
}

// foldKey is how a case-insensitive file system compares names, near
// enough: Unicode simple case folding, and Windows' device names and
// trailing dots and spaces.
func foldKey(p string) string {
	comps := strings.Split(strings.ToLower(strings.ToUpper(p)), "/")
	for i, c := range comps {
		c = strings.TrimRight(c, ". ")
		if stem, _, _ := strings.Cut(c, "."); isDevice(stem) {
			c = "device:" + stem // every name of a device is one file
		}
		comps[i] = c
	}
	return strings.Join(comps, "/")
}

// checkURL checks every path of the canonical URL u.
func checkURL(t *testing.T, u string) {
	t.Helper()
	n := ReserveLen(u)
	for _, typ := range fuzzTypes {
		p, err := Path(u, typ)
		if err != nil {
			if !strings.Contains(err.Error(), "path longer than") {
				t.Fatalf("Path(%q, %q): %v", u, typ, err)
			}
			continue
		}
		checkPath(t, u, p)
		if fp, err := (Layout{FoldCase: true}).Path(u, typ); err == nil {
			checkPath(t, u, fp)
			if len(fp) > n {
				t.Errorf("FoldCase Path(%q, %q) is %d bytes, ReserveLen %d", u, typ, len(fp), n)
			}
		}
		if back, ok := unpath(p); ok && back != aliasKey(u, typ) {
			t.Errorf("Path(%q, %q) = %q reads back as %q, want %q", u, typ, p, back, aliasKey(u, typ))
		}
		if len(p) > n {
			t.Errorf("Path(%q, %q) is %d bytes, ReserveLen %d", u, typ, len(p), n)
		}
	}
}

// checkPath checks the guarantees of Path's doc on its result p for u.
func checkPath(t testing.TB, u, p string) {
	t.Helper()
	if !filepath.IsLocal(p) || checkRel(p) != nil || len(p) > maxPath || !utf8.ValidString(p) {
		t.Errorf("Path(%q) = %q: not a local, valid name", u, p)
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." || len(c) > 255 {
			t.Errorf("Path(%q) = %q: bad component %q", u, p, c)
		}
	}
	for _, r := range p {
		if r <= ' ' || r == 0x7f || r == '\\' || r == '#' || unicode.IsControl(r) ||
			unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || keptEscaped(r) {
			t.Errorf("Path(%q) = %q holds %U", u, p, r)
		}
	}
}

// aliasKey spells out, from the URL alone, which URLs the layout lets share a
// file and what it adds to a name: only the scheme is dropped (http and
// https share), and the key says what the media type adds to the name
// (fileName's rule).
func aliasKey(u, typ string) string {
	_, rest, _ := strings.Cut(u, "://")
	p, q, hasQuery := strings.Cut(rest, "?")
	name := p[strings.LastIndexByte(p, '/')+1:]
	if name == "" {
		name = "index.html"
	}
	if hasQuery {
		name += "?" + q
	}
	lower := strings.ToLower(name)
	added := ""
	switch {
	case typ == html && !strings.HasSuffix(lower, ".html") && !strings.HasSuffix(lower, ".htm"):
		added = "{}.html"
	case typ == css && !strings.HasSuffix(lower, ".css"):
		added = "{}.css"
	case typ != html && typ != css && !strings.ContainsAny(name, ".?"):
		added = "{}"
	}
	return rest + " " + added
}

// unpath inverts Path up to the aliases: for a path with no hashed
// component it returns aliasKey of the URL it came from. That Path has such
// an inverse is the injectivity proof, checked URL by URL; ok is false for
// a path with a hashed component.
func unpath(p string) (key string, ok bool) {
	comps := strings.Split(p, "/")
	for _, c := range comps {
		if len(c) > maxName {
			return "", false
		}
	}
	switch {
	case comps[0] == "%2E%2E":
		comps[0] = ".."
	case strings.HasPrefix(comps[0], "%2E"):
		comps[0] = "." + comps[0][3:]
	}
	if h, ok := strings.CutSuffix(comps[0], "%2Ehtml"); ok {
		comps[0] = h + ".html"
	}
	last := len(comps) - 1
	for i := 1; i < last; i++ {
		if comps[i] == emptySeg {
			comps[i] = ""
		} else {
			comps[i] = upperEscapeNonASCII(comps[i])
		}
	}
	name, literalIndex := strings.CutPrefix(comps[last], mark+indexName)
	if literalIndex {
		name = indexName + name
	}
	added := ""
	if i := strings.Index(name, mark); i >= 0 {
		name, added = name[:i], name[i:]
	}
	name, query, hasQuery := strings.Cut(name, "?")
	if name == indexName && !literalIndex {
		name = ""
	}
	comps[last] = upperEscapeNonASCII(name)
	if hasQuery {
		q, err := url.PathUnescape(query)
		if err != nil {
			return "", false
		}
		comps[last] += "?" + q
	}
	return strings.Join(comps, "/") + " " + added, true
}

// TestDecodeSegmentInverse checks the injectivity argument of decodeSegment:
// escaping the non-ASCII bytes of its result in upper case gives its input.
func TestDecodeSegmentInverse(t *testing.T) {
	for _, tt := range pathTests {
		u := canon(t, tt.url)
		_, rest, _ := strings.Cut(u, "://")
		p, _, _ := strings.Cut(rest, "?")
		for _, seg := range strings.Split(p, "/")[1:] {
			if got := upperEscapeNonASCII(decodeSegment(seg)); got != seg {
				t.Errorf("decodeSegment(%q) does not invert: %q", seg, got)
			}
		}
	}
}

func upperEscapeNonASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestKeptEscaped checks the fixed table against this Go's Unicode tables.
// A failure after a Go upgrade means a new space or format character: adding
// it to keptRanges moves the files of URLs that hold it.
func TestKeptEscaped(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if (unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)) && !keptEscaped(r) {
			t.Errorf("%U is decoded, want it kept escaped", r)
		}
	}
	for _, r := range []rune{0xFEFF, 0x202A, 0x202E, 0x2066, 0x2069, 0x85, 0x9F, 0xFFFE, 0x1FFFF} {
		if !keptEscaped(r) {
			t.Errorf("%U is decoded", r)
		}
	}
	for _, r := range []rune{'é', 'Ж', 'ж', '中', 0x1F600, 0xFB01} {
		if keptEscaped(r) {
			t.Errorf("%U kept escaped, want decoded", r)
		}
	}
}
