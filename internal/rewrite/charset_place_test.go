package rewrite

import (
	"strings"
	"testing"

	"golang.org/x/net/html/charset"
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
			// From the file alone, a browser now finds what the header said.
			_, served, _ := charset.DetermineEncoding([]byte(tt.in), tt.ct)
			if _, file, _ := charset.DetermineEncoding([]byte(got), ""); file != served {
				t.Errorf("file alone reads as %s, served as %s", file, served)
			}
		})
	}
}
