package rewrite

import (
	"strings"
	"testing"

	"golang.org/x/net/html/charset"

	"github.com/spider-mirror/spider/internal/htmlurl"
)

func TestCharsetDeclared(t *testing.T) {
	long := strings.Repeat("<!-- padding -->", 80)
	tests := []struct{ name, ct, in, want string }{
		{"header only", "text/html; charset=utf-8", "<!DOCTYPE html>\n<html><head><title>é</title>",
			"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>é</title>"},
		{"meta agrees", "text/html; charset=utf-8", `<html><head><meta charset="UTF-8">`, `<html><head><meta charset="UTF-8">`},
		{"meta disagrees", "text/html; charset=windows-1251", `<head><meta charset="utf-8">`, `<head><meta charset="windows-1251"><meta charset="utf-8">`},
		{"no head tag", "text/html; charset=koi8-r", "<!doctype html><!-- c -->\n<p>x", "<!doctype html><!-- c -->\n<meta charset=\"koi8-r\"><p>x"},
		{"head too late", "text/html; charset=utf-8", long + "<head>", `<meta charset="utf-8">` + long + "<head>"},
		{"no header, no meta", "", "<p>plain", `<meta charset="windows-1252"><p>plain`},
		{"bom", "text/html; charset=windows-1252", "\xef\xbb\xbf<p>x", "\xef\xbb\xbf<p>x"},
		{"utf-16 bom", "text/html", "\xff\xfe<\x00p\x00", "\xff\xfe<\x00p\x00"},
		{"head with attributes", "text/html; charset=shift_jis", `<HEAD profile="x">`, `<HEAD profile="x"><meta charset="shift_jis">`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Charset([]byte(tt.in), tt.ct))
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			// Page finds the place in its own pass; nothing here is a link.
			if page, _, err := Page([]byte(tt.in), "http://h/", tt.ct, func(string, htmlurl.Kind) (string, bool) { return "", false }); err != nil || string(page) != tt.want {
				t.Errorf("Page: %q, %v; want %q", page, err, tt.want)
			}
			// From the file alone, a browser now finds what the header said.
			_, served, _ := charset.DetermineEncoding([]byte(tt.in), tt.ct)
			if _, file, _ := charset.DetermineEncoding([]byte(got), ""); file != served {
				t.Errorf("file alone reads as %s, served as %s", file, served)
			}
		})
	}
}

// rewrite finds metaPlace's offset in its own pass where the page is
// unchanged before it, and leaves it to Charset (-1) where it is not or
// where its pass reads the page differently (<noscript>).
func TestRewritePlace(t *testing.T) {
	target := func(abs string, _ htmlurl.Kind) (string, bool) { return "local/" + abs[len("http://h/"):], true }
	for _, tt := range []struct {
		in    string
		found bool
	}{
		{"<!DOCTYPE html>\n<html lang=en>\n<head>\n<title>t</title><link rel=stylesheet href=/s.css></head><body><a href=/a>a</a>", true},
		{"<!doctype html><!-- c -->\n<p><a href=/a>no head</a>", true},
		{"<p>plain, no links", true},
		{"<html><link rel=stylesheet href=/s.css><head><title>t</title>", false},
		{"<noscript><p></noscript><head><a href=/a>a</a>", false},
	} {
		out, _, at, err := rewrite([]byte(tt.in), "http://h/", "text/html; charset=utf-8", target, true, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := at >= 0; got != tt.found {
			t.Errorf("%q: place %d, want found %v", tt.in, at, tt.found)
		}
		if at >= 0 && at != metaPlace(out) {
			t.Errorf("%q: place %d, metaPlace says %d", tt.in, at, metaPlace(out))
		}
	}
}
