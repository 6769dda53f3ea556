package rewrite

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/htmlurl"
)

// firstCalls returns the distinct URLs of calls with the kind of the first
// call for each, in order: extract's dedup rule. Forms' targets, which
// extract does not report, are left out.
func firstCalls(calls []call) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range calls {
		if c.kind != extract.Action && !seen[c.abs] {
			seen[c.abs] = true
			fmt.Fprintf(&b, "%s %s\n", c.kind, c.abs)
		}
	}
	return b.String()
}

func extracted(t testing.TB, base, ct string, body []byte) string {
	t.Helper()
	links, err := extract.HTML(base, ct, body)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s %s\n", l.Kind, l.URL)
	}
	return b.String()
}

// TestAgreesWithExtract checks that Target is asked about the links extract
// reports, with the same kinds and in the same order: links on the goldens
// resolve to the URLs the mirror stores. Fragment-only and empty links,
// which extract reports as the page itself, are left out of the goldens.
func TestAgreesWithExtract(t *testing.T) {
	for _, g := range goldens {
		url := g.url
		if url == "" {
			url = page
		}
		body, err := os.ReadFile("testdata/" + g.name + ".html")
		if err != nil {
			t.Fatal(err)
		}
		var calls []call
		if _, err := HTML(body, url, g.ct, mirrorTarget(url, &calls)); err != nil {
			t.Fatal(err)
		}
		got, want := firstCalls(calls), extracted(t, url, g.ct, body)
		if g.name == "a" {
			want = strings.Replace(want, "page "+page+"\n", "", 1) // "#top" and "" resolve to the page
			got = strings.Replace(got, "page "+page+"\n", "", 1)
		}
		if got != want {
			t.Errorf("%s: target asked about:\n%sextract found:\n%s", g.name, got, want)
		}
	}
}

// FuzzAgree checks that srcset and refresh values, written with any
// character references, give Target the URLs extract finds, or are left
// alone.
func FuzzAgree(f *testing.F) {
	for _, s := range []string{"a.png 1x, b,c.png 2x", "x,, y (1, 2), z", " u", "5; url='n.html'", "0;URL=a b", "3, x"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, refresh bool) {
		body := `<img srcset="` + html.EscapeString(v) + `">`
		if refresh {
			body = `<meta http-equiv=refresh content="` + html.EscapeString(v) + `">`
		}
		var calls []call
		if _, err := HTML([]byte(body), page, "text/html; charset=utf-8", mirrorTarget(page, &calls)); err != nil {
			t.Fatal(err)
		}
		// A candidate "#f" or "" is the page to extract and left alone here;
		// a value whose quotes or separators are references may be left alone.
		self := func(s string) string {
			s = strings.ReplaceAll(s, "requisite "+page+"\n", "")
			return strings.ReplaceAll(s, "page "+page+"\n", "")
		}
		got, want := self(firstCalls(calls)), self(extracted(t, page, "text/html; charset=utf-8", []byte(body)))
		if got != want && !(got == "" && strings.ContainsAny(v, "&\"'")) {
			t.Errorf("%s: target asked about:\n%sextract found:\n%s", body, got, want)
		}
	})
}

// FuzzHTMLLinks checks that HTMLLinks returns what HTML and extract.HTML
// return for the page, whether it found the links in its own pass or left
// them to extract.
func FuzzHTMLLinks(f *testing.F) {
	for _, g := range goldens {
		body, err := os.ReadFile("testdata/" + g.name + ".html")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, g.ct)
	}
	for _, s := range []string{
		`<!DOCTYPE html><html><head><title>t</title><a href=/a>a</a>`,
		`<html><link rel=stylesheet href=s.css><head><meta charset=utf-8>`,
		`<!-- c --><noscript><head></noscript><p><a href=x>`,
		`<p>x<div style="background: url(bg.png)"><a href=a style='background:url("i.png")'>`,
		`<body style="background: url(bg.png)"><p><body style="color: red">`,
		`<A HREF="/x">x</A><base href="/d/"><a href="y#f">y</a><a href="#top">t</a><a href="">e</a>`,
		`<table><a href=t></table><a xlink:href=x>x</a><svg><a xlink:href=y></a></svg>`,
		"<a href=\"/\xe9t\xe9?q=\xe9\">x</a>",
		`<img src=a.png srcset="b.png 1x, c.png 2x"><meta http-equiv=refresh content="0; url=/r">`,
	} {
		f.Add([]byte(s), "text/html")
		f.Add([]byte(s), "text/html; charset=utf-8")
		f.Add([]byte(s), "text/html; charset=windows-1251")
	}
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		target := func(abs string, kind htmlurl.Kind) (string, bool) { return "m/" + abs, true }
		out, links, err := HTMLLinks(body, page, ct, target)
		if err != nil {
			t.Fatal(err)
		}
		want, err := HTML(body, page, ct, target)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("HTMLLinks wrote:\n%q\nHTML wrote:\n%q", out, want)
		}
		wantLinks, err := extract.HTML(page, ct, body)
		if err != nil {
			t.Fatal(err)
		}
		if len(links) != len(wantLinks) || len(links) > 0 && !reflect.DeepEqual(links, wantLinks) {
			t.Fatalf("HTMLLinks found:\n%v\nextract found:\n%v", links, wantLinks)
		}
		page, pageLinks, err := Page(body, page, ct, target)
		if err != nil {
			t.Fatal(err)
		}
		if want := Charset(out, ct); !bytes.Equal(page, want) || !reflect.DeepEqual(pageLinks, links) {
			t.Fatalf("Page wrote:\n%q\nCharset(HTMLLinks) wrote:\n%q", page, want)
		}
	})
}

// HTMLLinks finds the links in its own pass on pages the tokenizer reads
// as the tree builder would, and leaves the others to extract.
func TestHTMLLinksOnePass(t *testing.T) {
	target := func(abs string, kind htmlurl.Kind) (string, bool) { return "x", true }
	for _, c := range []struct {
		body, ct string
		onePass  bool
	}{
		{`<!DOCTYPE html><html><head><link rel=stylesheet href=s.css></head><body><a href=/a>a</a><div style="background:url(b.png)">`, "text/html; charset=utf-8", true},
		{`<p>no links at all</p>`, "text/html", true},
		{`<a href=/a>a</a><table><tr><td><a href=/b>b</a></table>`, "text/html; charset=utf-8", false},
		{`<a href=/a>a</a><style>p { background: url(b.png) }</style>`, "text/html; charset=utf-8", false},
		{"<a href=/\xff>a</a>", "text/html; charset=utf-8", false},
		{"<a href=/\xe9>a</a>", "text/html; charset=windows-1252", false},
		{"<a href=/\xe9>a</a>", "text/html; charset=koi8-r", false},
	} {
		_, links, _, err := rewrite([]byte(c.body), page, c.ct, target, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := links != nil; got != c.onePass {
			t.Errorf("%q (%s): one pass %v, want %v", c.body, c.ct, got, c.onePass)
		}
	}
}

// A form's target is asked about as an Action, which extract does not
// report, and rewritten to what Target says (the crawl points it online).
func TestFormAction(t *testing.T) {
	body := `<form action="/w/index.php"><input name=q><button formaction="b?x=1">b</button>` +
		`<input type=submit formaction=/c></form><a href="/a">a</a>`
	var calls []call
	out, err := HTML([]byte(body), page, "text/html; charset=utf-8", func(abs string, kind extract.Kind) (string, bool) {
		calls = append(calls, call{abs, kind})
		return abs, true
	})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&got, "%s %s\n", c.kind, c.abs)
	}
	want := "action http://example.com/w/index.php\naction http://example.com/dir/b?x=1\n" +
		"action http://example.com/c\npage http://example.com/a\n"
	if got.String() != want {
		t.Errorf("target asked about:\n%swant:\n%s", got.String(), want)
	}
	for _, v := range []string{`action="http://example.com/w/index.php"`, `formaction="http://example.com/dir/b?x=1"`, `formaction=http://example.com/c>`} {
		if !bytes.Contains(out, []byte(v)) {
			t.Errorf("%s not in %s", v, out)
		}
	}
	if got, want := extracted(t, page, "", []byte(body)), "page http://example.com/a\n"; got != want {
		t.Errorf("extract found:\n%swant:\n%s", got, want)
	}
}
