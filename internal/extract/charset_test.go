package extract

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"

	"github.com/spider-mirror/spider/internal/urlkey"
)

// encode returns s in the encoding e, failing the test on a rune e lacks.
func encode(t *testing.T, e encoding.Encoding, s string) string {
	t.Helper()
	b, err := e.NewEncoder().String(s)
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

const (
	statyaUTF8  = "%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F" // "статья" in UTF-8, percent-encoded
	privet1251  = "%EF%F0%E8%E2%E5%F2"                   // "привет" in windows-1251
	privetKOI8R = "%D0%D2%C9%D7%C5%D4"                   // "привет" in koi8-r
	nihonUTF8   = "%E6%97%A5%E6%9C%AC"                   // "日本" in UTF-8
	privetUTF8  = "%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82" // "привет" in UTF-8
)

func TestCharsets(t *testing.T) {
	win1251 := charmap.Windows1251
	koi8r := charmap.KOI8R
	sjis := japanese.ShiftJIS
	tests := []struct {
		name string
		ct   string
		body string
		want string // URLs, one per line
	}{
		{
			"windows-1251 from Content-Type",
			"text/html; charset=windows-1251",
			encode(t, win1251, `<a href="/статья">статья</a>`),
			"http://example.com/" + statyaUTF8,
		},
		{
			"windows-1251 from meta charset",
			"text/html",
			encode(t, win1251, `<html><head><meta charset="windows-1251"></head><a href="/статья">ы</a>`),
			"http://example.com/" + statyaUTF8,
		},
		{
			"windows-1251 from meta http-equiv, query in page encoding",
			"",
			encode(t, win1251, `<meta http-equiv="Content-Type" content="text/html; charset=cp1251"><a href="/статья?q=привет#якорь">`),
			"http://example.com/" + statyaUTF8 + "?q=" + privet1251,
		},
		{
			"windows-1251 unencodable character in query",
			"text/html; charset=windows-1251",
			encode(t, win1251, `<a href="/s?q=`) + "&#26085;" + encode(t, win1251, `я">`), // 日 as a character reference
			"http://example.com/s?q=%26%2326085%3B%FF",
		},
		{
			"koi8-r from meta charset",
			"",
			encode(t, koi8r, `<meta charset=koi8-r><title>Привет</title><a href="статья?q=привет">`),
			"http://example.com/dir/" + statyaUTF8 + "?q=" + privetKOI8R,
		},
		{
			"Content-Type beats meta",
			"text/html; charset=koi8-r",
			encode(t, koi8r, `<meta charset=windows-1251><a href="статья">`),
			"http://example.com/dir/" + statyaUTF8,
		},
		{
			"Shift_JIS from Content-Type",
			"text/html; charset=Shift_JIS",
			encode(t, sjis, `<a href="/日本">日本語</a><a href="/s?q=日本">`),
			"http://example.com/" + nihonUTF8 + "\nhttp://example.com/s?q=%93%FA%96{",
		},
		{
			"Shift_JIS from meta",
			"",
			encode(t, sjis, `<meta http-equiv=content-type content="text/html;charset=sjis"><img src="画像.png">`),
			"http://example.com/dir/%E7%94%BB%E5%83%8F.png",
		},
		{
			"EUC-JP",
			"text/html; charset=euc-jp",
			encode(t, japanese.EUCJP, `<a href="/日本">`),
			"http://example.com/" + nihonUTF8,
		},
		{
			"UTF-8 undeclared",
			"",
			`<a href="/статья?q=привет">`,
			"http://example.com/" + statyaUTF8 + "?q=" + privetUTF8,
		},
		{
			"UTF-8 declared, query stays UTF-8",
			"text/html; charset=utf-8",
			`<a href="/s?q=привет">`,
			"http://example.com/s?q=" + privetUTF8,
		},
		{
			"UTF-16LE with BOM",
			"text/html; charset=windows-1251", // the BOM wins
			encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), `<a href="/статья?q=привет">`),
			"http://example.com/" + statyaUTF8 + "?q=" + privetUTF8,
		},
		{
			"unknown charset label falls back to sniffing",
			"text/html; charset=x-no-such-charset",
			`<a href="/статья">`,
			"http://example.com/" + statyaUTF8,
		},
		{
			"undeclared high bytes are windows-1252",
			"",
			"<a href=\"/caf\xe9\">",
			"http://example.com/caf%C3%A9",
		},
	}
	for _, tt := range tests {
		var want strings.Builder
		for _, u := range strings.Split(tt.want, "\n") {
			want.WriteString(u + "\n")
		}
		links, err := HTML(page, tt.ct, []byte(tt.body))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got strings.Builder
		for _, l := range links {
			got.WriteString(l.URL + "\n")
		}
		if got.String() != want.String() {
			t.Errorf("%s:\n got: %s want: %s", tt.name, got.String(), want.String())
		}
	}
}

func TestInvalidBytes(t *testing.T) {
	bodies := []string{
		"<a href=\"/\xff\xfe\xfd\">",
		"<a href=\"/ok\xc3\">\xc3\x28<img src=\"\xe2\x82\">",
		"\xef\xbb\xbf<a href=\"/bom\">",    // UTF-8 BOM
		"\xfe\xff\x00<\x00a",               // truncated UTF-16BE
		"<meta charset=utf-16><a href=/x>", // meta cannot declare UTF-16: treated as UTF-8
		"<meta charset=\"\xff\xff\"><a href=/x>",
		"<a href=\"http://\xff\xfe/\">",
		"<a href=\"?q=\xff\">",
		strings.Repeat("\x80", 3000) + "<a href=/late>",
	}
	for _, ct := range []string{"", "text/html; charset=utf-8", "text/html; charset=shift_jis", "text/html; charset=iso-2022-jp"} {
		for _, b := range bodies {
			links, err := HTML(page, ct, []byte(b))
			if err != nil {
				t.Errorf("%q %q: %v", ct, b, err)
			}
			for _, l := range links {
				if u, err := urlkey.Parse(l.URL); err != nil || u != l.URL {
					t.Errorf("%q %q: link %q not canonical", ct, b, l.URL)
				}
			}
		}
	}
}
