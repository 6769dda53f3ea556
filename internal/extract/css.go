package extract

import (
	"fmt"

	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// CSS returns the URLs a style sheet served at base refers to (url(),
// @import, image-set() strings), absolute and canonical, deduplicated, in
// order, with Tag "": of Kind Style and Attr "@import" for the sheets it
// imports, of Kind Requisite and Attr "url" for the images and fonts it
// needs to display. The sheet is read as UTF-8;
// CSS escapes in a URL are undone. At most MaxInput bytes are read and
// MaxLinks links returned.
//
// The error is non-nil only if base is not a valid http or https URL.
func CSS(base string, body []byte) ([]Link, error) {
	docURL, err := urlkey.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("extract: base url: %w", err)
	}
	if len(body) > MaxInput {
		body = body[:MaxInput]
	}
	c := &collector{base: docURL, query: htmlurl.NewQueryEncoder("utf-8"), seen: map[string]bool{}}
	c.css("", body)
	return c.links, nil
}

// css records the URLs of the CSS text b (already decoded to UTF-8) found
// in element tag ("" for a style sheet): as tag[style] for a style
// attribute's value, as tag "style" for a <style> element's text, with
// Attr "@import" for an @import.
func (c *collector) css(tag string, b []byte) {
	for _, u := range htmlurl.CSSURLs(b) {
		attr := "url"
		switch {
		case u.Import:
			attr = "@import"
		case tag != "" && tag != "style":
			attr = "style"
		}
		kind := Requisite
		if u.Import {
			kind = Style
		}
		c.add(htmlurl.CSSUnescape(b[u.Start:u.End]), kind, tag, attr, false)
	}
}

// styleAttr records the URLs of an element's style attribute, if any.
func (c *collector) styleAttr(tag string, get func(string) (string, bool)) {
	if v, ok := get("style"); ok {
		c.css(tag, []byte(v))
	}
}
