package rewrite

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	wurl "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/extract"
)

func FuzzHTML(f *testing.F) {
	seeds := []struct{ ct, body string }{
		{"", awkward},
		{"text/html; charset=windows-1251", "<a href=\"/\xf1\xf2?q=\xef#\xff\">"},
		{"", `<meta charset=koi8-r><base href="/b/"><img srcset="a,b 1x, c 2x" src=d>`},
		{"text/html; charset=shift_jis", "<a href=\"/\x93\xfa?\x96\x7b\">"},
		{"", `<noscript><img src=n></noscript><meta http-equiv=refresh content="0;url=r">`},
		{"", "<div><div><div><a href=//h/p>"},
		{"", "\xfe\xff\x00<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00x\x00>"},
		{"", `<a href="javascript:x"><a href="mailto:y"><a href="#f"><a href="">`},
		{"", `<base target=x href=y/><a href=z/><img src=/>`},
		{"", `<BAse href href ><img srC=0><base href=a href=b><a href=c>`},
		{"", "<a href=\"x\r\ny&copy=1&amp\x00\">"},
	}
	for _, s := range seeds {
		f.Add(s.ct, []byte(s.body), "X")
	}
	files, _ := filepath.Glob("testdata/*.html")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("", b, `a"b' c&d<>`)
	}
	f.Fuzz(func(t *testing.T, ct string, body []byte, ref string) {
		out, err := HTML(body, page, ct, func(string, extract.Kind) (string, bool) { return "", false })
		if err != nil || !bytes.Equal(out, body) {
			t.Fatalf("target says no: HTML = %q, %v; want the input", out, err)
		}
		for _, r := range []string{"X", ref} {
			out, err = HTML(body, page, ct, func(string, extract.Kind) (string, bool) { return r, true })
			if err != nil {
				t.Fatal(err)
			}
			if _, err := diffOutside(body, out); err != nil {
				t.Fatalf("ref %q: %v\n in: %q\nout: %q", r, err, body, out)
			}
			if !bytes.Equal(out, body) && hasBaseHref(out) {
				t.Fatalf("ref %q: a <base href> is left in %q", r, out)
			}
		}
		checkScan(t, body)
	})
}

// checkScan checks that scanAttrs finds the attributes the tokenizer finds.
func checkScan(t *testing.T, body []byte) {
	z := html.NewTokenizer(bytes.NewReader(body))
	r := &rewriter{}
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		raw := bytes.Clone(z.Raw())
		z.TagName()
		var want []string
		for more := true; more; {
			var k, v []byte
			if k, v, more = z.TagAttr(); k != nil {
				want = append(want, string(k)+"="+string(v))
			}
		}
		var got []string
		seen := map[string]bool{}
		for _, a := range scanAttrs(nil, raw) {
			if a.key != "" && !seen[a.key] {
				seen[a.key] = true
				v, _ := r.value(raw[a.v0:a.v1])
				got = append(got, strings.ReplaceAll(a.key, "\x00", "\uFFFD")+"="+v)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("tag %q: scanAttrs %q, tokenizer %q", raw, got, want)
		}
	}
}

func hasBaseHref(b []byte) bool {
	z := html.NewTokenizer(bytes.NewReader(b))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			if tok := z.Token(); tok.Data == "base" {
				for _, a := range tok.Attr {
					if a.Key == "href" {
						return true
					}
				}
			} else if tok.Data == "noscript" {
				z.NextIsNotRawText()
			}
		}
	}
	return false
}

// FuzzRel checks that the reference Rel makes leads, from the file it is
// written in, to the file it names, for net/url and for a browser's parser.
func FuzzRel(f *testing.F) {
	for _, tt := range [][2]string{
		{"h/a/b.html", "h/a/c.html"}, {"h/x.html", "g:81/y.html"}, {"h/index.html", "h/index.html?page=2.html"},
		{"h/a b/%.html", "h/#/c?d.html"}, {"h/index.html", "h/c:d/e|f\\g"}, {"h/i", "h/статья"},
	} {
		f.Add(tt[0], tt[1])
	}
	f.Fuzz(func(t *testing.T, from, to string) {
		from, to = safePath(from), safePath(to)
		if from == "" || to == "" {
			return
		}
		rel := Rel(from, to)
		base := &url.URL{Scheme: "file", Path: "/root/" + from}
		ref, err := url.Parse(rel)
		if err != nil {
			t.Fatalf("Rel(%q, %q) = %q: %v", from, to, rel, err)
		}
		res := base.ResolveReference(ref)
		p, err := url.PathUnescape(res.EscapedPath())
		if err != nil || p != "/root/"+to || res.Host != "" || res.RawQuery != "" || res.Fragment != "" {
			t.Fatalf("Rel(%q, %q) = %q leads to %q (%v)", from, to, rel, res, err)
		}
		var segs []string
		for _, s := range strings.Split(from, "/") {
			segs = append(segs, url.PathEscape(s))
		}
		w, err := wurl.ParseRef("file:///root/"+strings.Join(segs, "/"), rel)
		if err != nil {
			t.Fatalf("Rel(%q, %q) = %q: %v", from, to, rel, err)
		}
		if p, err := url.PathUnescape(w.Pathname()); err != nil || p != "/root/"+to || w.Search() != "" || w.Hash() != "" {
			t.Fatalf("Rel(%q, %q) = %q leads a browser to %q", from, to, rel, w.Href(false))
		}
	})
}

// safePath returns p without empty, "." and ".." segments, which mirror
// paths do not have.
func safePath(p string) string {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." && s != ".." {
			segs = append(segs, s)
		}
	}
	return strings.Join(segs, "/")
}
