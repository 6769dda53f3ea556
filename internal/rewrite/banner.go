package rewrite

import (
	"bytes"
	"html"
	"time"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// The comments that enclose the archive banner, so that it is found,
// replaced and removed without parsing the page.
const (
	bannerStart = "<!--spider:archived-->"
	bannerEnd   = "<!--/spider:archived-->"
)

// BannerID is the id of the archive banner's element.
const BannerID = "spider-archived"

// Banner returns a saved page (as written to the mirror, its encoding
// declared in it or a BOM) with a banner that says that the page at
// pageURL was removed from the site and when it was found gone. The banner
// is a short ASCII <div id="spider-archived"> between two marker comments,
// inserted right after the <body> start tag, or at the end of a page that
// has none (not at its start: that could push a <meta charset> beyond the
// 1024 bytes a browser scans). A page that has a banner gets the new one in
// its place. Pages in UTF-16 are returned as they are. Everything else
// stays byte for byte.
func Banner(page []byte, pageURL string, gone time.Time) []byte {
	if _, name, _ := charset.DetermineEncoding(page, ""); name == "utf-16le" || name == "utf-16be" {
		return page
	}
	page = Unbanner(page)
	b := []byte(bannerStart + `<div id="` + BannerID + `" role="note" style="all:initial;display:block;` +
		`font:14px/1.4 sans-serif;background:#fff3cd;color:#5c4400;border-bottom:1px solid #e0c36a;padding:6px 12px">` +
		`<b style="font-weight:bold">Archived copy.</b> This page was removed from the site: it was found gone on ` +
		gone.UTC().Format("2006-01-02 15:04 UTC") + `. Its address was <a style="color:inherit" href="` +
		html.EscapeString(pageURL) + `">` + html.EscapeString(pageURL) + `</a>.</div>` + bannerEnd)
	at := afterBody(page)
	out := make([]byte, 0, len(page)+len(b))
	out = append(out, page[:at]...)
	out = append(out, b...)
	return append(out, page[at:]...)
}

// Unbanner returns page without its archive banner, if it has one.
func Unbanner(page []byte) []byte {
	i := bytes.Index(page, []byte(bannerStart))
	if i < 0 {
		return page
	}
	j := bytes.Index(page[i:], []byte(bannerEnd))
	if j < 0 {
		return page
	}
	j += i + len(bannerEnd)
	return append(page[:i:i], page[j:]...)
}

// HasBanner reports whether page carries an archive banner.
func HasBanner(page []byte) bool {
	i := bytes.Index(page, []byte(bannerStart))
	return i >= 0 && bytes.Contains(page[i:], []byte(bannerEnd))
}

// afterBody returns the offset just after the <body> start tag, or the
// length of page if it has none.
func afterBody(page []byte) int {
	z := xhtml.NewTokenizer(bytes.NewReader(page))
	off := 0
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return len(page)
		}
		off += len(z.Raw())
		if tt == xhtml.StartTagToken {
			if name, _ := z.TagName(); string(name) == "body" {
				return min(off, len(page))
			}
		}
	}
}
