package extract

import (
	"bytes"
	"reflect"
	"testing"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/htmlurl"
)

// Whatever page simple accepts, it finds the links the tree finds, in the
// same order.
func FuzzSimpleAgrees(f *testing.F) {
	f.Add(`<base href="/x/"><a href="a">x</a><img src=c srcset="d 1x, e 2x"><p><a href=n>`)
	f.Add(`<link rel=stylesheet href=s.css><meta http-equiv=refresh content="0;url=r"><iframe src=i></iframe><video poster=p src=v><source src=so><area href=ar>`)
	f.Add(`<html><body background=x><body background=y><a href=q><b><a href=z>t</b></a><head><base href=h></head>`)
	f.Add(`<table><a href=t></table><svg><a xlink:href=x></a></svg><form><form action=f>`)
	f.Add(`<title><a href=t></title><textarea><a href=u></textarea><script><a href=s></script><style><a href=st></style><a href="a&amp;b&#0;c">`)
	f.Add(`<p>x<div style="background: url(bg.png)"><a href=a style='background:url("i.png")'>`)
	f.Add(`<body style="background: url(bg.png)"><p><body style="color: red">`)
	f.Fuzz(func(t *testing.T, s string) {
		mk := func() *collector {
			return &collector{base: "http://h.example/d/p", query: htmlurl.NewQueryEncoder("utf-8"), seen: map[string]bool{}}
		}
		b, ok := simple("http://h.example/d/p", "utf-8", []byte(s))
		if !ok {
			return
		}
		root, err := html.ParseWithOptions(bytes.NewReader([]byte(s)), html.ParseOptionEnableScripting(false))
		if err != nil {
			return
		}
		a := mk().tree(root)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("tree   %v\nsimple %v", a, b)
		}
	})
}

// simple takes pages made of common tags, and leaves to the tree the pages
// where the tree builder moves, drops or renames elements.
func TestSimpleFallsBack(t *testing.T) {
	for body, want := range map[string]bool{
		`<!DOCTYPE html><html><head><link rel=stylesheet href=s.css></head><body class=x><nav><a href=/>h</a></nav></body></html>`: true,
		`<table><tr><td><a href=x>x</a></table>`:   false,
		`<svg><a xlink:href=x>x</a></svg>`:         false,
		`<body background=bg.png><a href=x>x</a>`:  false,
		`<select><option><a href=x>x</a></select>`: false,
		`<image src=i.png>`:                        false,
		`<body style="background: url(b.png)">`:    false,
		`<div style="background: url(b.png)">`:     true,
	} {
		if _, ok := simple("http://h.example/", "utf-8", []byte(body)); ok != want {
			t.Errorf("simple(%q) ok = %v, want %v", body, ok, want)
		}
	}
}
