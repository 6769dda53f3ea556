// Package rewrite points the links of a saved page at their copies in the
// mirror.
//
// HTML changes the URL-bearing attributes that package extract reads (both
// take the elements, attributes, kinds and srcset and refresh syntax from
// package htmlurl) to the references a Target chooses, usually relative
// paths made with Rel, so that the mirror can be browsed from disk (file://)
// or from any web root; the URLs in CSS, in <style> elements and style
// attributes, are rewritten too (url(), @import, image-set() strings, found
// by htmlurl.CSSURLs with tdewolff/parse's CSS tokenizer), and CSS does the
// same for a style sheet. Everything else stays byte for byte as served:
// text, comments, scripts, the rest of the CSS, other tags, the other
// attributes of a rewritten tag and the bytes of the page's encoding, which
// is never converted (Charset makes that encoding known to a browser that
// opens the file from disk). Once
// some link is rewritten, the href of every <base> is removed, since it
// would lead the relative links back to the live site.
//
// Links are resolved as extract resolves them (urlkey, the page's encoding
// for non-ASCII in the query, the first <base href>), so that a Target can
// look up the URL extract reported. Functions here are pure and safe for
// concurrent use; memory grows linearly with the page, however deeply it is
// nested.
package rewrite

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// Target decides what a link becomes. abs is the link's canonical absolute
// URL (urlkey), without fragment, and kind its htmlurl.Kind, which
// extract.Kind names too, so a Target may be written with either. Target
// returns the new reference, already escaped (e.g. "../topic/1-x.html",
// usually made with Rel), and true; or false to leave the link exactly as it
// was written. To point a link at the live site instead, return abs itself.
//
// HTML appends the link's own fragment ("#top") to the reference, unless the
// reference already has one. Bytes of the reference that may not appear raw
// in a URL (controls, space, non-ASCII) are percent-encoded, so that the
// reference is ASCII whatever the page's encoding.
type Target func(abs string, kind htmlurl.Kind) (ref string, ok bool)

// HTML returns body with every URL-bearing attribute for which target says
// ok replaced by target's reference, and everything else byte for byte as
// served. base is the page's canonical URL, contentType the Content-Type
// header value (may be "").
//
// A value that does not resolve to an http or https URL (mailto:,
// javascript:, data:, malformed), an empty value and a fragment-only value
// ("#top") are left alone, and target is not asked about them. Every URL of
// a srcset is rewritten separately, keeping its descriptors; in <meta
// http-equiv=refresh> only the URL part of content is.
//
// The encoding is determined as extract determines it. Pages in UTF-8 and
// in ASCII-compatible encodings (windows-1251, koi8-r, Shift_JIS, EUC-JP,
// GBK, ...) are rewritten in their own bytes. Pages whose markup is not
// ASCII-compatible (UTF-16, ISO-2022-JP, the "replacement" encodings) are
// returned unchanged. If nothing is rewritten, the result is body itself.
//
// The error is non-nil only if base is not a valid http or https URL.
func HTML(body []byte, base, contentType string, target Target) ([]byte, error) {
	out, _, _, err := rewrite(body, base, contentType, target, false, false)
	return out, err
}

// HTMLLinks returns what HTML returns, and the links of the page: what
// extract.HTML(base, contentType, body) returns. Pages made of the
// elements that the HTML tree builder keeps as they are, in UTF-8 (or
// ASCII), which is most of them, take one pass of the tokenizer for both,
// since it sees the links as the tree would (extract.Collector); other
// pages are parsed again by extract.HTML.
func HTMLLinks(body []byte, base, contentType string, target Target) ([]byte, []extract.Link, error) {
	out, links, _, err := htmlLinks(body, base, contentType, target, false)
	return out, links, err
}

// Page returns what Charset(HTMLLinks(...), contentType) returns: the page
// as the mirror keeps it, and its links. It finds where the <meta charset>
// goes in the same pass, wherever the rewritten page is the page up to
// there (no link rewritten before it), which saves Charset a pass of the
// tokenizer and a copy of the page.
func Page(body []byte, base, contentType string, target Target) ([]byte, []extract.Link, error) {
	out, links, at, err := htmlLinks(body, base, contentType, target, true)
	if err != nil {
		return nil, nil, err
	}
	return declare(out, contentType, at), links, nil
}

// htmlLinks is HTMLLinks, and with place also returns metaPlace's offset
// for the result, or -1 if its pass could not tell.
func htmlLinks(body []byte, base, contentType string, target Target, place bool) ([]byte, []extract.Link, int, error) {
	out, links, at, err := rewrite(body, base, contentType, target, true, place)
	if err != nil || links != nil {
		return out, links, at, err
	}
	links, err = extract.HTML(base, contentType, body)
	return out, links, at, err
}

// rewrite is HTML, and with collect it also returns the links of a page
// for which one pass finds what extract.HTML would: nil for other pages.
// With place it also returns metaPlace's offset for the result where the
// pass could tell, else -1.
func rewrite(body []byte, base, contentType string, target Target, collect, place bool) ([]byte, []extract.Link, int, error) {
	page, err := urlkey.Parse(base)
	if err != nil {
		return nil, nil, -1, fmt.Errorf("rewrite: base url: %w", err)
	}
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	switch name {
	case "utf-16be", "utf-16le", "iso-2022-jp", "replacement":
		return body, nil, -1, nil
	}
	r := &rewriter{body: body, base: page, target: target, query: htmlurl.NewQueryEncoder(name)}
	alike := readAlike(body, name)
	if enc != nil && enc != encoding.Nop && !alike {
		// A page read alike decodes to its own bytes (valid UTF-8 as
		// UTF-8, ASCII as windows-1252), and so does every value and
		// every span of one, which begin and end at ASCII bytes.
		r.dec = enc.NewDecoder()
	}
	r.findBase()
	r.styles = true
	if collect && len(body) <= extract.MaxInput && alike {
		r.col = extract.NewCollector(r.base, name)
	}
	if place {
		r.place = newPlacer()
	}
	r.tags(func(tag string, raw []byte, off int, attrs []attr) bool {
		if tag == "base" {
			r.removeHref(raw, off)
		} else {
			r.element(tag, raw, off, attrs)
		}
		return true
	})
	var links []extract.Link
	if r.col != nil && r.col.Simple() {
		links = r.col.Links()
		if links == nil {
			links = []extract.Link{}
		}
	}
	at := -1
	if r.place != nil && r.place.at >= 0 {
		at = r.place.at
	}
	if len(r.links) == 0 {
		return body, links, at, nil
	}
	edits := append(r.links, r.bases...)
	slices.SortStableFunc(edits, func(a, b edit) int { return a.start - b.start })
	if edits[0].start < at {
		at = -1 // the page changed before the place: Charset finds it
	}
	return apply(body, edits), links, at, nil
}

// readAlike reports whether extract reads body, in the encoding named enc,
// as the bytes they are: valid UTF-8, or ASCII in windows-1252 (the guess
// for a page that names no encoding). Only then does the tokenizer here
// see the tags and attribute values that extract's sees.
func readAlike(body []byte, enc string) bool {
	switch enc {
	case "utf-8":
		return utf8.Valid(body)
	case "windows-1252":
		for _, c := range body {
			if c >= utf8.RuneSelf {
				return false
			}
		}
		return true
	}
	return false
}

// A rewriter holds the state of one HTML call.
type rewriter struct {
	body   []byte
	base   string            // document base URL, canonical
	dec    *encoding.Decoder // page encoding to UTF-8; nil if the bytes are read as they are
	query  *htmlurl.QueryEncoder
	target Target
	links  []edit             // rewritten link values
	styles bool               // tags also rewrites the text of <style> elements
	col    *extract.Collector // if set, tags also feeds it every start tag
	bases  []edit             // removed <base href>s
	place  *placer            // if set, tags also feeds it the tokens until it knows metaPlace's offset or cannot

	scanned, kept []attr           // agree's memory, reused tag after tag
	tok           []html.Attribute // likewise
	edits         []edit           // element's, likewise
	pieces        []piece          // likewise
}

// An edit replaces body[start:end] with repl.
type edit struct {
	start, end int
	repl       []byte
}

// findBase sets the document base from the first <base href>, as a browser
// does: it applies to every link, also to those before it. An href that
// does not resolve to http or https leaves the page's URL as the base.
func (r *rewriter) findBase() {
	if !htmlurl.MayHoldTag(r.body, "base") {
		return // most pages: no second pass of the tokenizer
	}
	r.tags(func(tag string, raw []byte, _ int, attrs []attr) bool {
		if tag != "base" {
			return true
		}
		a, ok := first(attrs, "href")
		if !ok {
			return true
		}
		if v, ok := r.value(raw[a.v0:a.v1]); ok {
			if u, err := urlkey.Resolve(r.base, r.query.Encode(v)); err == nil {
				r.base = u
			}
		}
		return false
	})
}

// tags calls fn with each start tag of the body that may hold a link (by
// an htmlurl rule or a style attribute): its lower-case name, raw bytes,
// offset in the body and attributes, until fn returns false. With r.styles
// set, the URLs in the text of each <style> element are rewritten too.
// Content of <noscript> is read as markup, as extract reads it (scripting
// off). A tag whose attributes the tokenizer and scanAttrs do not see alike
// is skipped, as is, in theory, a tokenizer out of step with the body. With
// r.col set, every start tag also goes to it.
func (r *rewriter) tags(fn func(tag string, raw []byte, off int, attrs []attr) bool) {
	z := html.NewTokenizer(bytes.NewReader(r.body))
	inStyle := false
	for off := 0; ; {
		tt := z.Next()
		if tt == html.ErrorToken {
			if r.place != nil {
				r.place.end()
			}
			return // io.EOF: a bytes.Reader cannot fail
		}
		raw := z.Raw()
		if inStyle && tt == html.TextToken && r.styles && off+len(raw) <= len(r.body) &&
			bytes.Equal(raw, r.body[off:off+len(raw)]) {
			r.styleText(raw, off)
		}
		inStyle = false
		start := tt == html.StartTagToken || tt == html.SelfClosingTagToken
		var tag string
		var styled bool
		if start {
			tag, styled = startTag(z, raw)
		}
		if p := r.place; p != nil && p.open() {
			if tag == "noscript" {
				p.lost = true // read as markup here, unlike metaPlace's pass
			} else {
				p.token(tt, raw, tag)
			}
		}
		if start {
			if tag == "noscript" {
				z.NextIsNotRawText()
			}
			inStyle = tag == "style" && tt == html.StartTagToken
			wanted := tag == "base" || htmlurl.RulesFor(tag) != nil || styled
			switch {
			case wanted && off+len(raw) <= len(r.body) && bytes.Equal(raw, r.body[off:off+len(raw)]):
				attrs, tok, ok := r.agree(z, raw, r.col != nil)
				if r.col != nil {
					r.col.Tag(tag, tok)
				}
				if ok && !fn(tag, raw, off, attrs) {
					return
				}
			case wanted && r.col != nil:
				r.col.Abandon()
			case r.col != nil:
				r.col.Tag(tag, nil)
			}
		}
		off += len(raw)
	}
}

// startTag returns the lower-case name of the start tag that z just read,
// whose raw bytes are raw, as z.TagName does but without allocating for a
// common name (the bytes from '<' to the first white space, '/' or '>'),
// and whether the tag may have a style attribute with a URL in it
// (htmlurl.MayHaveStyle, and the tokenizer read attributes). It must come
// before TagAttr, and z.TagName tells whether there are attributes only
// the first time it is called for a tag.
func startTag(z *html.Tokenizer, raw []byte) (name string, styled bool) {
	mayStyle := htmlurl.MayHaveStyle(raw)
	i := 1
	for i < len(raw) && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		if raw[i] == 0 { // the tokenizer makes NUL U+FFFD
			n, has := z.TagName()
			return string(n), mayStyle && has
		}
		i++
	}
	if mayStyle {
		_, styled = z.TagName()
	}
	return lowerName(raw[1:i]), styled
}

// removeHref records the removal of every href attribute of a <base> tag,
// duplicates included (the tag's attributes as scanned, r.scanned, which
// agree fills), with the whitespace that separated it.
func (r *rewriter) removeHref(raw []byte, off int) {
	prev := 0 // where the removal before ended
	for _, a := range r.scanned {
		if a.key != "href" {
			continue
		}
		start, end := a.start, a.end
		switch {
		case end < len(raw) && isSpace(raw[end]):
			for end < len(raw) && isSpace(raw[end]) {
				end++
			}
		case end < len(raw) && raw[end] == '>':
			for start > prev && isSpace(raw[start-1]) {
				start--
			}
		}
		prev = end
		r.bases = append(r.bases, edit{off + start, off + end, nil})
	}
}

// apply returns body with the sorted, disjoint edits made.
func apply(body []byte, edits []edit) []byte {
	n := len(body)
	for _, e := range edits {
		n += len(e.repl) - (e.end - e.start)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, e := range edits {
		out = append(out, body[last:e.start]...)
		out = append(out, e.repl...)
		last = e.end
	}
	return append(out, body[last:]...)
}
