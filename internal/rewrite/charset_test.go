package rewrite

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"

	"github.com/spider-mirror/spider/internal/extract"
)

// encode returns s in the encoding e, failing the test on a rune e lacks.
func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().String(s)
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return []byte(b)
}

const (
	statya1251 = "%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F" // "статья", a path: UTF-8
	privet1251 = "%EF%F0%E8%E2%E5%F2"                   // "привет", a query on a windows-1251 page
	yakorUTF8  = "%D1%8F%D0%BA%D0%BE%D1%80%D1%8C"       // "якорь", a fragment: UTF-8
)

func TestCharsets(t *testing.T) {
	tests := []struct {
		name string
		ct   string
		body []byte
		abs  string // the first URL target is asked about
		want []string
	}{
		{
			"windows-1251 from meta, Cyrillic path, query and fragment",
			"text/html",
			encode(t, charmap.Windows1251, `<meta charset="windows-1251"><title>Статья</title>`+
				`<a href="/статья?q=привет#якорь" title="Статья">статья</a>`+
				`<img src="http://cdn.example.net/картинка.png" alt="картинка">`),
			"http://example.com/" + statya1251 + "?q=" + privet1251,
			[]string{"a[href] /\xf1\xf2\xe0\xf2\xfc\xff?q=\xef\xf0\xe8\xe2\xe5\xf2#\xff\xea\xee\xf0\xfc -> " +
				"../" + statya1251 + "%3Fq=" + strings.ReplaceAll(privet1251, "%", "%25") + ".html#" + yakorUTF8},
		},
		{
			"windows-1251 srcset, one candidate out of scope stays in its bytes",
			"text/html; charset=windows-1251",
			encode(t, charmap.Windows1251, `<img srcset="/я.png 1x, //cdn.example.net/я.png 2x">`),
			"http://example.com/%D1%8F.png",
			[]string{"img[srcset] /\xff.png 1x, //cdn.example.net/\xff.png 2x -> ../%D1%8F.png 1x, //cdn.example.net/\xff.png 2x"},
		},
		{
			"koi8-r from Content-Type",
			"text/html; charset=koi8-r",
			encode(t, charmap.KOI8R, `<p>Привет</p><a href="/?q=привет">`),
			"http://example.com/?q=%D0%D2%C9%D7%C5%D4",
			[]string{"a[href] /?q=\xd0\xd2\xc9\xd7\xc5\xd4 -> ../index.html%3Fq=%25D0%25D2%25C9%25D7%25C5%25D4.html"},
		},
		{
			"Shift_JIS, trail bytes in the ASCII range",
			"text/html; charset=shift_jis",
			encode(t, japanese.ShiftJIS, `<p title="表示">表</p><a href="/表示.html">表</a>`),
			"http://example.com/%E8%A1%A8%E7%A4%BA.html",
			[]string{"a[href] /\x95\x5c\x8e\xa6.html -> ../%E8%A1%A8%E7%A4%BA.html"},
		},
		{
			"invalid UTF-8 in a page declared UTF-8 reads as U+FFFD",
			"text/html; charset=utf-8",
			[]byte("<a href=\"/a\xffb.html\">\xff</a>"),
			"http://example.com/a%EF%BF%BDb.html",
			[]string{"a[href] /a\xffb.html -> ../a%EF%BF%BDb.html"},
		},
	}
	for _, tt := range tests {
		var calls []call
		out, err := HTML(tt.body, page, tt.ct, mirrorTarget(page, &calls, "example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) == 0 || calls[0].abs != tt.abs {
			t.Errorf("%s: calls %v, want first %s", tt.name, calls, tt.abs)
		}
		if got, want := firstCalls(calls), extracted(t, page, tt.ct, tt.body); got != want {
			t.Errorf("%s: target asked about:\n%sextract found:\n%s", tt.name, got, want)
		}
		changes, err := diffOutside(tt.body, out)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got := strings.Join(changes, "\n"); got != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, strings.Join(tt.want, "\n"))
		}
	}
}

// TestUnchangedEncodings checks that pages whose markup is not
// ASCII-compatible come back as they are.
func TestUnchangedEncodings(t *testing.T) {
	yes := func(string, extract.Kind) (string, bool) { return "X", true }
	tests := []struct {
		name, ct string
		body     []byte
	}{
		{"UTF-16LE BOM", "", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), `<a href="/x">`)},
		{"UTF-16BE BOM", "text/html; charset=utf-8", encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), `<a href="/x">`)},
		{"ISO-2022-JP", "text/html; charset=iso-2022-jp", encode(t, japanese.ISO2022JP, `<p title="表">表</p><a href="/x">`)},
		{"replacement", "text/html; charset=iso-2022-kr", []byte(`<a href="/x">`)},
	}
	for _, tt := range tests {
		out, err := HTML(tt.body, page, tt.ct, yes)
		if err != nil || !bytes.Equal(out, tt.body) {
			t.Errorf("%s: HTML = %q, %v; want the input", tt.name, out, err)
		}
	}
}
