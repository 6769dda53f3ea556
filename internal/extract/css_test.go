package extract

import (
	"fmt"
	"strings"
	"testing"
)

func TestCSS(t *testing.T) {
	sheet := `@import "a.css"; @import url(/b.css) print;
body { background: url( '../img/bg.png' ) } /* url(/no.png) */
.x { background: url(//other.example.org/o.png), url(data:x), url(#f); cursor: url(c\ d.cur) }
.y { background-image: image-set("one.png" 1x, url(two.png) 2x); content: "url(/str.png)" }
.dup { background: url(/css/a.css) }`
	links, err := CSS("http://example.com/css/s.css", []byte(sheet))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s %s %s\n", l.Kind, l.Attr, l.URL)
	}
	want := `style @import http://example.com/css/a.css
style @import http://example.com/b.css
requisite url http://example.com/img/bg.png
requisite url http://other.example.org/o.png
requisite url http://example.com/css/s.css
requisite url http://example.com/css/c%20d.cur
requisite url http://example.com/css/one.png
requisite url http://example.com/css/two.png
`
	if b.String() != want {
		t.Errorf("got:\n%swant:\n%s", b.String(), want)
	}
}

func TestHTMLStyles(t *testing.T) {
	page := `<html><head><style>@import "st.css"; p { background: url(/p.png) }</style></head>
<body style="background: url(body.png)"><p style="x: url('/q.png')"><img src=i.png style="background:url(j.png)">`
	links, err := HTML("http://example.com/d/", "", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s %s[%s] %s\n", l.Kind, l.Tag, l.Attr, l.URL)
	}
	want := `style style[@import] http://example.com/d/st.css
requisite style[url] http://example.com/p.png
requisite body[style] http://example.com/d/body.png
requisite p[style] http://example.com/q.png
requisite img[src] http://example.com/d/i.png
requisite img[style] http://example.com/d/j.png
`
	if b.String() != want {
		t.Errorf("got:\n%swant:\n%s", b.String(), want)
	}
}
