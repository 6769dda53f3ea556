package hostile

import (
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// EncodedPage describes one of the non-UTF-8 pages: what is served, and
// what a crawler must make of it.
type EncodedPage struct {
	ContentType string // the Content-Type header sent
	Body        []byte // the bytes sent
	Text        []byte // a run of the page's text in its own encoding, which a saved copy must still hold byte for byte
	Link        string // the canonical path its one link must resolve to
}

func encode(e encoding.Encoding, s string) []byte {
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(err) // the pages below are written in their encodings' repertoire
	}
	return b
}

// EncodedPages are the non-UTF-8 cases by path.
var EncodedPages = map[string]EncodedPage{
	"/cp1251": {
		ContentType: "text/html; charset=windows-1251",
		Body:        encode(charmap.Windows1251, `<html><head><title>Привет</title></head><body><p>Привет, мир: съешь же ещё этих мягких французских булок</p><a href="/ru/привет">ссылка</a></body></html>`),
		Text:        encode(charmap.Windows1251, "съешь же ещё этих мягких французских булок"),
		Link:        "/ru/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82",
	},
	"/koi8r": {
		ContentType: "text/html",
		Body:        encode(charmap.KOI8R, `<html><head><meta charset="koi8-r"><title>Мир</title></head><body><p>Широкая электрификация южных губерний</p><a href="/ru/мир">мир</a></body></html>`),
		Text:        encode(charmap.KOI8R, "Широкая электрификация южных губерний"),
		Link:        "/ru/%D0%BC%D0%B8%D1%80",
	},
	"/sjis": {
		ContentType: "text/html; charset=Shift_JIS",
		Body:        encode(japanese.ShiftJIS, `<html><head><title>日本語</title></head><body><p>いろはにほへと ちりぬるを</p><a href="/ja/日本">日本</a></body></html>`),
		Text:        encode(japanese.ShiftJIS, "いろはにほへと ちりぬるを"),
		Link:        "/ja/%E6%97%A5%E6%9C%AC",
	},
	"/bad-utf8": {
		ContentType: "text/html; charset=utf-8",
		Body:        []byte("<html><head><title>bad \xff\xfe bytes</title></head><body><p>caf\xe9 \xed\xa0\x80 \xc0\xae</p><a href=\"/ok-after-bad\">on</a></body></html>"),
		Text:        []byte("<p>caf\xe9 \xed\xa0\x80 \xc0\xae</p>"),
		Link:        "/ok-after-bad",
	},
}

// Encoded returns the Content-Type and body served at path, one of
// EncodedPages' keys.
func Encoded(path string) (contentType string, body []byte) {
	p := EncodedPages[path]
	return p.ContentType, p.Body
}
