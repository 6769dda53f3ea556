// Package sitemap reads sitemaps (the sitemaps.org protocol, 0.9): url
// sets and sitemap index files, gzipped or not, as a stream, within the
// protocol's limits, so that a hostile file costs no more than they
// allow. It does no network I/O and knows nothing of the crawl:
// internal/crawl fetches the files and decides what the entries are worth.
//
// A file is read with encoding/xml's streaming decoder; no sitemap
// library passed the module proxy this project uses, and the ones
// published (github.com/oxffaa/gopher-parse-sitemap,
// github.com/yterajima/go-sitemap) have no limits. What is read:
//
//   - gzip is recognised by its magic bytes, whatever the file is called
//     or served as (a ".gz" name, application/gzip, or neither);
//   - at most Limits.MaxBytes bytes once decompressed (a gzip bomb ends
//     there, with ErrTooLarge) and Limits.MaxEntries entries (ErrTooMany
//     after the last one allowed is delivered);
//   - the root element decides the Kind: urlset or sitemapindex, in any
//     namespace or none; anything else is ErrNotSitemap;
//   - the loc and lastmod of each url (or sitemap) element directly under
//     the root; other elements (images, news, alternates) are skipped;
//     elements nested deeper than maxDepth are ErrTooDeep;
//   - a loc longer than MaxLoc is dropped with its entry;
//   - lastmod is read by Lastmod; one that does not parse leaves the
//     entry without a date.
package sitemap

import (
	"bufio"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The protocol's limits of one file.
const (
	MaxEntries = 50_000
	MaxBytes   = 50 << 20 // "50MB (52,428,800 bytes)", uncompressed
	// MaxLoc bounds the length of a loc: the protocol asks for less than
	// 2,048 characters; a longer one is dropped.
	MaxLoc = 2048
)

// maxDepth bounds how deep elements nest: a urlset's loc is at depth 3,
// an image extension's at 4. A file nested deeper is not a sitemap.
const maxDepth = 16

// Kind is what a file is.
type Kind int

const (
	Unknown Kind = iota
	URLSet       // lists pages
	Index        // lists sitemaps
)

func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	}
	return "unknown"
}

// Entry is one url of a url set, or one sitemap of an index.
type Entry struct {
	Loc     string    // as written, spaces trimmed; not checked
	Lastmod time.Time // zero if absent or not a W3C datetime
}

// Limits bound what Read reads of one file; zero fields take the
// protocol's limits (MaxEntries, MaxBytes).
type Limits struct {
	MaxEntries int
	MaxBytes   int64 // after decompression
}

var (
	ErrTooLarge   = errors.New("sitemap: over the size limit")
	ErrTooMany    = errors.New("sitemap: over the limit of entries")
	ErrTooDeep    = errors.New("sitemap: elements nested too deep")
	ErrNotSitemap = errors.New("sitemap: neither a urlset nor a sitemapindex")
)

// Read reads one sitemap file from r and calls each for every entry, in
// file order, until each returns false, the file ends or a limit is
// reached. It returns the file's kind, the bytes it read once
// decompressed, and why it stopped early, if it did: a limit's error
// (the entries before it were delivered), or a gzip or XML error.
func Read(r io.Reader, lim Limits, each func(Entry) bool) (Kind, int64, error) {
	if lim.MaxEntries <= 0 {
		lim.MaxEntries = MaxEntries
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = MaxBytes
	}
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Unknown, 0, fmt.Errorf("sitemap: gzip: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	cr := &capReader{r: src, left: lim.MaxBytes}
	p := &parser{lim: lim, each: each}
	err := p.run(cr)
	if cr.over {
		err = ErrTooLarge
	}
	return p.kind, lim.MaxBytes - cr.left, err
}

// parser is the state of one Read.
type parser struct {
	lim   Limits
	each  func(Entry) bool
	kind  Kind
	depth int
	n     int             // entries delivered
	in    string          // "loc" or "lastmod" while inside one in an entry
	loc   strings.Builder // of the entry being read
	mod   strings.Builder
	long  bool // the entry's loc is over MaxLoc
}

func (p *parser) run(r io.Reader) error {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	// The protocol asks for UTF-8; a file declaring another encoding is
	// read as it is, as its URLs are ASCII when well made.
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if p.kind == Unknown {
				return ErrNotSitemap
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("sitemap: %w", err)
		}
		more, err := p.token(tok)
		if err != nil || !more {
			return err
		}
	}
}

// token takes one token; more is false once each asked to stop.
func (p *parser) token(tok xml.Token) (more bool, err error) {
	switch t := tok.(type) {
	case xml.StartElement:
		p.depth++
		if p.depth > maxDepth {
			return false, ErrTooDeep
		}
		return p.start(t.Name.Local)
	case xml.EndElement:
		p.depth = max(p.depth-1, 0)
		switch {
		case p.depth == 1 && t.Name.Local == p.entryName():
			return p.end()
		case p.depth == 2:
			p.in = ""
		}
	case xml.CharData:
		p.text(t)
	}
	return true, nil
}

// entryName is the name of the elements under the root that are entries.
func (p *parser) entryName() string {
	if p.kind == Index {
		return "sitemap"
	}
	return "url"
}

// start opens an element; more is false at a second root element, after
// which nothing is read.
func (p *parser) start(name string) (more bool, err error) {
	switch p.depth {
	case 1:
		switch {
		case p.kind != Unknown:
			return false, nil
		case name == "urlset":
			p.kind = URLSet
		case name == "sitemapindex":
			p.kind = Index
		default:
			return false, ErrNotSitemap
		}
	case 2:
		p.loc.Reset()
		p.mod.Reset()
		p.long, p.in = false, ""
	case 3:
		if name == "loc" || name == "lastmod" {
			p.in = name
		}
	}
	return true, nil
}

// text keeps the text of a loc or a lastmod, up to what either may hold.
func (p *parser) text(b []byte) {
	if p.depth != 3 {
		return
	}
	switch p.in {
	case "loc":
		if p.loc.Len()+len(b) > MaxLoc+64 { // room for the spaces trimmed
			p.long = true
			return
		}
		p.loc.Write(b)
	case "lastmod":
		if p.mod.Len()+len(b) <= 64 {
			p.mod.Write(b)
		}
	}
}

// end ends an entry: it is delivered if it has a loc.
func (p *parser) end() (more bool, err error) {
	loc := strings.TrimSpace(p.loc.String())
	if loc == "" || p.long || len(loc) > MaxLoc {
		return true, nil
	}
	if p.n >= p.lim.MaxEntries {
		return false, ErrTooMany
	}
	p.n++
	e := Entry{Loc: loc}
	e.Lastmod, _ = Lastmod(p.mod.String())
	return p.each(e), nil
}

// capReader reads at most left bytes from r; over says r had more.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capReader) Read(b []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(c.r, one[:]); n > 0 {
			c.over = true
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= int64(n)
	return n, err
}
