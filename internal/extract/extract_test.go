package extract

import (
	"fmt"
	"strings"
	"testing"
)

const page = "http://example.com/dir/page.html"

// short renders links one per line as "kind tag[attr] url", for tables.
func short(links []Link) string {
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s %s[%s] %s\n", l.Kind, l.Tag, l.Attr, l.URL)
	}
	return b.String()
}

func check(t *testing.T, name, base, ct, body, want string) {
	t.Helper()
	links, err := HTML(base, ct, []byte(body))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if got := short(links); got != want {
		t.Errorf("%s:\n got:\n%s want:\n%s", name, got, want)
	}
}

func TestSelectors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"a", `<a href="x.html">x</a>`, "page a[href] http://example.com/dir/x.html\n"},
		{"area", `<map><area href="/m"></map>`, "page area[href] http://example.com/m\n"},
		{"frame", `<frameset><frame src="f1"></frameset>`, "frame frame[src] http://example.com/dir/f1\n"},
		{"iframe", `<iframe src="if"></iframe>`, "frame iframe[src] http://example.com/dir/if\n"},
		{"img src", `<img src="i.png">`, "requisite img[src] http://example.com/dir/i.png\n"},
		{"img src and srcset", `<img src="i.png" srcset="i2.png 2x, i3.png 3x">`,
			"requisite img[src] http://example.com/dir/i.png\n" +
				"requisite img[srcset] http://example.com/dir/i2.png\n" +
				"requisite img[srcset] http://example.com/dir/i3.png\n"},
		{"script", `<script src="/app.js"></script><script>var a = "<a href=no>"</script>`,
			"requisite script[src] http://example.com/app.js\n"},
		{"stylesheet", `<link rel=stylesheet href="s.css">`, "style link[href] http://example.com/dir/s.css\n"},
		{"icon", `<link rel="shortcut icon" href="/favicon.ico">`, "requisite link[href] http://example.com/favicon.ico\n"},
		{"apple icon", `<link rel="apple-touch-icon-precomposed" href="/t.png">`, "requisite link[href] http://example.com/t.png\n"},
		{"preload", `<link rel=preload as=font href="/f.woff2">`, "requisite link[href] http://example.com/f.woff2\n"},
		{"alternate stylesheet", `<link rel="alternate stylesheet" href="alt.css">`, "style link[href] http://example.com/dir/alt.css\n"},
		{"canonical is a page", `<link rel=canonical href="/c">`, "page link[href] http://example.com/c\n"},
		{"alternate is a page", `<link rel=alternate hreflang=fr href="/fr/">`, "page link[href] http://example.com/fr/\n"},
		{"preconnect dropped", `<link rel=preconnect href="//cdn.example.net"><link rel=dns-prefetch href="//x.example.net">`, ""},
		{"meta refresh", `<meta http-equiv="Refresh" content="5; URL='next.html'">`, "page meta[content] http://example.com/dir/next.html\n"},
		{"meta refresh without url", `<meta http-equiv=refresh content="30">`, ""},
		{"other meta", `<meta name=og:url content="http://example.com/og">`, ""},
		{"media", `<video src=v.mp4 poster=p.jpg><source src=s.webm><track src=t.vtt></video><audio src=a.ogg></audio>`,
			"requisite video[src] http://example.com/dir/v.mp4\n" +
				"requisite video[poster] http://example.com/dir/p.jpg\n" +
				"requisite source[src] http://example.com/dir/s.webm\n" +
				"requisite track[src] http://example.com/dir/t.vtt\n" +
				"requisite audio[src] http://example.com/dir/a.ogg\n"},
		{"picture", `<picture><source srcset="w.webp 1x, w2.webp 2x"><img src=p.jpg></picture>`,
			"requisite source[srcset] http://example.com/dir/w.webp\n" +
				"requisite source[srcset] http://example.com/dir/w2.webp\n" +
				"requisite img[src] http://example.com/dir/p.jpg\n"},
		{"embed object", `<embed src=e.swf><object data=o.svg></object>`,
			"requisite embed[src] http://example.com/dir/e.swf\n" +
				"requisite object[data] http://example.com/dir/o.svg\n"},
		{"input image only", `<input type=image src=btn.png><input type=text src=no.png>`,
			"requisite input[src] http://example.com/dir/btn.png\n"},
		{"background", `<body background=bg.gif><table background=t.gif><tr><td background=td.gif>`,
			"requisite body[background] http://example.com/dir/bg.gif\n" +
				"requisite table[background] http://example.com/dir/t.gif\n" +
				"requisite td[background] http://example.com/dir/td.gif\n"},
		{"noscript", `<noscript><img src="ns.gif"></noscript>`, "requisite img[src] http://example.com/dir/ns.gif\n"},
		{"noscript in head", `<head><noscript><link rel=stylesheet href=ns.css></noscript></head>`,
			"style link[href] http://example.com/dir/ns.css\n"},
		{"svg a", `<svg><a xlink:href="/svg-link"><text>t</text></a></svg>`, "page a[href] http://example.com/svg-link\n"},
		{"no attribute", `<a name=top>t</a><img alt=x><script></script>`, ""},
		{"upper case", `<A HREF="UP.html">x</A><IMG SRC="I.PNG">`,
			"page a[href] http://example.com/dir/UP.html\nrequisite img[src] http://example.com/dir/I.PNG\n"},
		{"document order across kinds", `<img src=1><a href=2></a><iframe src=3></iframe><a href=4></a><script src=5></script>`,
			"requisite img[src] http://example.com/dir/1\n" +
				"page a[href] http://example.com/dir/2\n" +
				"frame iframe[src] http://example.com/dir/3\n" +
				"page a[href] http://example.com/dir/4\n" +
				"requisite script[src] http://example.com/dir/5\n"},
	}
	for _, tt := range tests {
		check(t, tt.name, page, "text/html", tt.body, tt.want)
	}
}

func TestResolve(t *testing.T) {
	tests := []struct{ name, base, body, want string }{
		{"relative", page, `<a href="a/b.html">`, "http://example.com/dir/a/b.html\n"},
		{"dot dot", page, `<a href="../up.html">`, "http://example.com/up.html\n"},
		{"too many dot dots", page, `<a href="../../../../x">`, "http://example.com/x\n"},
		{"root relative", page, `<a href="/root">`, "http://example.com/root\n"},
		{"absolute", page, `<a href="https://other.example/p?q=1">`, "https://other.example/p?q=1\n"},
		{"protocol relative", "https://example.com/", `<a href="//cdn.example.net/x.js">`, "https://cdn.example.net/x.js\n"},
		{"query only", page, `<a href="?page=2">`, "http://example.com/dir/page.html?page=2\n"},
		{"fragment only is the page", page, `<a href="#top">`, "http://example.com/dir/page.html\n"},
		{"empty href is the page", page, `<a href="">`, "http://example.com/dir/page.html\n"},
		{"whitespace trimmed", page, "<a href=\"  \n x.html \t\">", "http://example.com/dir/x.html\n"},
		{"host case and port", page, `<a href="HTTP://Example.COM:80/A">`, "http://example.com/A\n"},
		{"space in path", page, `<a href="a b.html">`, "http://example.com/dir/a%20b.html\n"},
		{"entity", page, `<a href="p?a=1&amp;b=2">`, "http://example.com/dir/p?a=1&b=2\n"},
		{"utf-8 path", page, `<a href="/страница">`, "http://example.com/%D1%81%D1%82%D1%80%D0%B0%D0%BD%D0%B8%D1%86%D0%B0\n"},
		{"idn host", page, `<a href="http://пример.рф/">`, "http://xn--e1afmkfd.xn--p1ai/\n"},
		{"base not canonical", "HTTP://EXAMPLE.com:80/dir/page.html", `<a href="x">`, "http://example.com/dir/x\n"},
	}
	for _, tt := range tests {
		var want string
		for _, u := range strings.Split(strings.TrimSuffix(tt.want, "\n"), "\n") {
			if u != "" {
				want += "page a[href] " + u + "\n"
			}
		}
		check(t, tt.name, tt.base, "", tt.body, want)
	}
}

func TestDropped(t *testing.T) {
	for _, href := range []string{
		"mailto:a@example.com", "javascript:void(0)", "JavaScript:alert(1)", "data:text/html,hi",
		"tel:+123", "ftp://example.com/f", "file:///etc/passwd", "http://", "http://[::1", "about:blank",
		"http://example.com/" + strings.Repeat("a", 5000),
	} {
		links, err := HTML(page, "", []byte(`<a href="`+href+`">x</a><img src="`+href+`">`))
		if err != nil || len(links) != 0 {
			t.Errorf("%.40q: got %v, %v; want nothing", href, links, err)
		}
	}
}

func TestDedupe(t *testing.T) {
	body := `<a href="/x">1</a><img src="http://EXAMPLE.com/x"><a href="/x#frag">3</a><a href="/y"><a href="../x">`
	check(t, "dedupe", page, "", body,
		"page a[href] http://example.com/x\npage a[href] http://example.com/y\n")
}

func TestBase(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"base href", `<base href="http://cdn.example.org/sub/"><a href="x">`, "http://cdn.example.org/sub/x\n"},
		{"relative base", `<base href="/other/"><a href="x">`, "http://example.com/other/x\n"},
		{"base applies to earlier links", `<a href="x"></a><base href="/late/">`, "http://example.com/late/x\n"},
		{"first base wins", `<base href="/one/"><base href="/two/"><a href="x">`, "http://example.com/one/x\n"},
		{"base without href skipped", `<base target=_blank><base href="/b/"><a href="x">`, "http://example.com/b/x\n"},
		{"javascript base ignored", `<base href="javascript:alert(1)"><a href="x">`, "http://example.com/dir/x\n"},
		{"base is not a link", `<base href="/b/">`, ""},
	}
	for _, tt := range tests {
		var want string
		if tt.want != "" {
			want = "page a[href] " + tt.want
		}
		check(t, tt.name, page, "", tt.body, want)
	}
}

func TestBadBase(t *testing.T) {
	for _, base := range []string{"", "/relative", "mailto:x@example.com", "ftp://example.com/"} {
		if _, err := HTML(base, "", []byte(`<a href="http://example.com/">`)); err == nil {
			t.Errorf("HTML(%q): no error", base)
		}
	}
}

func TestMaxLinks(t *testing.T) {
	var b strings.Builder
	for i := range MaxLinks + 50 {
		fmt.Fprintf(&b, `<a href="/p%d">`, i)
	}
	links, err := HTML(page, "", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != MaxLinks {
		t.Errorf("%d links, want %d", len(links), MaxLinks)
	}
	if got := links[MaxLinks-1].URL; got != fmt.Sprintf("http://example.com/p%d", MaxLinks-1) {
		t.Errorf("last link %q", got)
	}
}

// The parser rejects nesting deeper than 512 open elements; links are still
// found, by the tokenizer.
func TestDeepNesting(t *testing.T) {
	body := `<base href="/b/"><a href=first>` + strings.Repeat("<div>", 2000) +
		`<a href="deep"><noscript><img src=ns.gif></noscript><script src=s.js></script><script>"<a href=no>"</script>`
	check(t, "deep", page, "", body,
		"page a[href] http://example.com/b/first\n"+
			"page a[href] http://example.com/b/deep\n"+
			"requisite img[src] http://example.com/b/ns.gif\n"+
			"requisite script[src] http://example.com/b/s.js\n")
}

// A page's <meta name="robots"> with nofollow (or none) marks every link
// Nofollow; rel="nofollow" marks the links of its own <a> or <area>, as long
// as no other occurrence of the link lacks it; noindex alone, another
// meta name or another rel marks nothing. Both the tree and the one-pass
// readers agree (a <table> sends the page to the tree).
func TestNofollow(t *testing.T) {
	for _, table := range []string{"", "<table><tr><td>x</td></tr></table>"} {
		for _, tt := range []struct {
			name, page string
			want       map[string]bool // URL path -> Nofollow
		}{
			{"meta nofollow", `<meta name="robots" content="noindex,nofollow"><a href="/a">a</a><img src="/i.png">`, map[string]bool{"/a": true, "/i.png": true}},
			{"meta none", `<META NAME="Robots" CONTENT=" NONE "><a href="/a">a</a>`, map[string]bool{"/a": true}},
			{"meta noindex only", `<meta name="robots" content="noindex"><a href="/a">a</a>`, map[string]bool{"/a": false}},
			{"other meta", `<meta name="googlebot" content="nofollow"><a href="/a">a</a>`, map[string]bool{"/a": false}},
			{"rel nofollow", `<a href="/a" rel="noopener NoFollow">a</a><a href="/b">b</a>`, map[string]bool{"/a": true, "/b": false}},
			{"rel other", `<a href="/a" rel="next">a</a>`, map[string]bool{"/a": false}},
			{"nofollow then plain", `<a href="/a" rel="nofollow">a</a><a href="/a">a again</a>`, map[string]bool{"/a": false}},
			{"plain then nofollow", `<a href="/a">a</a><a href="/a" rel="nofollow">a again</a>`, map[string]bool{"/a": false}},
			{"area", `<map><area href="/m" rel="nofollow"></map>`, map[string]bool{"/m": true}},
		} {
			links, err := HTML("http://h/", "text/html; charset=utf-8", []byte("<html><head>"+tt.page+"</head><body>"+table+"</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, l := range links {
				got[strings.TrimPrefix(l.URL, "http://h")] = l.Nofollow
			}
			for p, want := range tt.want {
				if nf, ok := got[p]; !ok || nf != want {
					t.Errorf("%s (table %v): %s found %v, nofollow %v; want nofollow %v", tt.name, table != "", p, ok, nf, want)
				}
			}
		}
	}
}
