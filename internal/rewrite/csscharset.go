package rewrite

import (
	"bytes"
	"mime"

	"golang.org/x/net/html/charset"
)

// CSSCharset returns a style sheet served with Content-Type header value
// contentType made to declare the header's charset in the file itself: a
// browser loading it from disk has no header, and without a BOM or an
// @charset rule decodes it in the encoding of the page that links it. If
// the header names no charset, or the sheet starts with a BOM or an
// @charset rule, or the charset is not ASCII-compatible (UTF-16), body is
// returned as it is; else `@charset "NAME";` is put before it. The bytes are
// never converted.
func CSSCharset(body []byte, contentType string) []byte {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["charset"] == "" {
		return body
	}
	enc, name := charset.Lookup(params["charset"])
	if enc == nil || name == "utf-16le" || name == "utf-16be" || name == "replacement" {
		return body
	}
	for _, bom := range [][]byte{{0xef, 0xbb, 0xbf}, {0xfe, 0xff}, {0xff, 0xfe}} {
		if bytes.HasPrefix(body, bom) {
			return body
		}
	}
	if bytes.HasPrefix(body, []byte(`@charset "`)) {
		return body
	}
	return append([]byte(`@charset "`+name+`";`+"\n"), body...)
}
