package sitetest

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/png"
	"strings"
	"sync"
)

// The Articles shape; see Articles.
const (
	magazineName    = "Spider Test Magazine"
	SectionPerPage  = 10 // Articles: articles per section index page
	ArchivePerPage  = 20 // Articles: articles per archive page
	minProse        = 2048
	proseRange      = 4096 // an article has minProse to minProse+proseRange bytes of prose
	pagerEnd        = 1    // a section pager shows this many pages at either end,
	pagerMid        = 2    // and this many either side of the current page
	articleSections = 4
)

// sections are the Articles shape's sections, by name; article N is in
// sections[(N-1)%len(sections)].
var sections = [articleSections]string{"news", "science", "travel", "culture"}

var magazineNav = func() []navLink {
	nav := []navLink{{"/", "Home"}}
	for _, name := range sections {
		nav = append(nav, navLink{sectionPath(name, 1), strings.ToUpper(name[:1]) + name[1:]})
	}
	return append(nav, navLink{archivePath(1), "Archive"}, navLink{"/about", "About"})
}()

func sectionOf(t *topic) string { return sections[(t.id-1)%len(sections)] }

func sectionPath(name string, p int) string { return pagedPath("/section/"+name+"/", p) }

func archivePath(p int) string { return pagedPath("/archive/", p) }

// pagedPath is page p of the index at dir: dir itself, or dir?page=p.
func pagedPath(dir string, p int) string {
	if p == 1 {
		return dir
	}
	return dir + "?page=" + itoa(p)
}

// pageRef is the link from one page of an index to page p of the same
// index: a query-only reference, or "./" for page 1.
func pageRef(p int) string {
	if p == 1 {
		return "./"
	}
	return "?page=" + itoa(p)
}

func imagePath(t *topic) string { return "/media/" + itoa(t.id) + ".png" }

// renderArticles renders the Articles shape's pages: live articles newest
// first, latest in the home page's order.
func (s *Site) renderArticles(add addFunc, live, latest []*topic) {
	bySection := map[string][]*topic{}
	for _, t := range live {
		bySection[sectionOf(t)] = append(bySection[sectionOf(t)], t)
	}
	sectionPage := make(map[*topic]int, len(live))
	for _, name := range sections {
		list := bySection[name]
		n := max(1, (len(list)+SectionPerPage-1)/SectionPerPage)
		for p := 1; p <= n; p++ {
			lo, hi := (p-1)*SectionPerPage, min(p*SectionPerPage, len(list))
			for _, t := range list[lo:hi] {
				sectionPage[t] = p
			}
			add(sectionPath(name, p), htmlType, renderSection(name, p, n, list[lo:hi]))
		}
	}
	n := max(1, (len(live)+ArchivePerPage-1)/ArchivePerPage)
	for p := 1; p <= n; p++ {
		lo, hi := (p-1)*ArchivePerPage, min(p*ArchivePerPage, len(live))
		add(archivePath(p), htmlType, renderArchive(p, n, live[lo:hi]))
	}
	add("/", htmlType, renderFrontPage(latest))
	add("/about", htmlType, renderMagazineAbout())
	for _, t := range live {
		add(t.path, htmlType, renderArticle(t, sectionPath(sectionOf(t), sectionPage[t])))
		add(imagePath(t), "image/png", content{body: s.image(t)})
	}
}

// image returns article t's image, encoded once.
func (s *Site) image(t *topic) []byte {
	img := s.images[t.id]
	if img == nil {
		img = articleImage(t.id)
		s.images[t.id] = img
	}
	return img
}

// listArticles writes a list of articles, each with its summary, which no
// edit changes: an edit changes the article's page alone.
func listArticles(d *doc, list []*topic) {
	d.printf("<ul class=\"articles\">\n")
	if len(list) == 0 {
		d.printf("<li>No articles yet.</li>\n")
	}
	for _, t := range list {
		d.link(`<li><a href="%s">`, t.path, t.path)
		d.printf("%s</a><br>%s</li>\n", html.EscapeString(t.title), summary(t))
	}
	d.printf("</ul>\n")
}

func renderFrontPage(latest []*topic) content {
	d := newPage(magazineName, "Home", magazineNav)
	d.printf("<h1>%s</h1>\n<section id=\"latest\">\n<h2>Latest</h2>\n", magazineName)
	listArticles(d, latest)
	d.printf("</section>\n<h2>Sections</h2>\n<ul>\n")
	for _, name := range sections {
		d.link(`<li><a href="%s">`+name+`</a></li>`+"\n", sectionPath(name, 1), sectionPath(name, 1))
	}
	d.printf("</ul>\n<p>")
	d.link(`<a href="%s">Every article, newest first</a></p>`+"\n", archivePath(1), archivePath(1))
	return d.done()
}

func renderMagazineAbout() content {
	d := newPage(magazineName, "About", magazineNav)
	d.printf("<h1>About</h1>\n<p>%s is a fixture for spider's benchmarks: long pages, an image each.</p>\n<p>", magazineName)
	d.link(`Printed on <a href="%s">an off-site press</a>; `, "https://example.org/", "")
	d.link(`write to <a href="%s">the editor</a>.</p>`+"\n", "mailto:editor@example.invalid", "")
	return d.done()
}

// renderSection renders page p of n of a section, with a numbered pager:
// the first and last pagerEnd pages and pagerMid either side of p.
func renderSection(name string, p, n int, list []*topic) content {
	d := newPage(magazineName, fmt.Sprintf("Section %s, page %d", name, p), magazineNav)
	d.printf("<h1>Section %s</h1>\n<p>Page %d of %d</p>\n", name, p, n)
	listArticles(d, list)
	d.printf("<nav class=\"pager\">")
	gap := false
	for q := 1; q <= n; q++ {
		switch {
		case q == p:
			d.printf("<span>%d</span> ", q)
		case q <= pagerEnd || q > n-pagerEnd || q >= p-pagerMid && q <= p+pagerMid:
			d.link(`<a href="%s">`+itoa(q)+`</a> `, pageRef(q), sectionPath(name, q))
		default:
			if !gap {
				d.printf("… ")
			}
			gap = true
			continue
		}
		gap = false
	}
	d.printf("</nav>\n")
	return d.done()
}

// renderArchive renders page p of n of the archive, which links only its
// neighbours.
func renderArchive(p, n int, list []*topic) content {
	d := newPage(magazineName, fmt.Sprintf("Archive, page %d", p), magazineNav)
	d.printf("<h1>Archive</h1>\n<p>Page %d of %d</p>\n", p, n)
	listArticles(d, list)
	d.printf("<nav class=\"pager\">")
	if p > 1 {
		d.link(`<a href="%s" rel="prev">« Newer posts</a> `, pageRef(p-1), archivePath(p-1))
	}
	if p < n {
		d.link(`<a href="%s" rel="next">Older posts »</a>`, pageRef(p+1), archivePath(p+1))
	}
	d.printf("</nav>\n")
	return d.done()
}

// renderArticle renders article t, which links its section's page at
// sectionRef.
func renderArticle(t *topic, sectionRef string) content {
	d := newPage(magazineName, t.title, magazineNav)
	name := sectionOf(t)
	d.printf("<article>\n<h1>%s</h1>\n<p class=\"meta\">Article #%d, revision %d, in ", html.EscapeString(t.title), t.id, t.rev)
	d.link(`<a href="%s">`+name+`</a>.</p>`+"\n", sectionRef, sectionRef)
	w, h := imageSize(t.id)
	d.link(`<figure><img src="%s"`, "../media/"+itoa(t.id)+".png", imagePath(t))
	d.printf(` alt="Figure %d" width="%d" height="%d"><figcaption>Figure %d.</figcaption></figure>`+"\n", t.id, w, h, t.id)
	for _, para := range prose(uint64(t.id)<<32 | uint64(t.rev)) {
		d.printf("<p>%s</p>\n", para)
	}
	d.printf("</article>\n<nav class=\"related\">")
	d.link(`<a href="%s">Home</a></nav>`+"\n", "/", "/")
	return d.done()
}

// summary is an article's one-sentence summary, the same in every revision.
func summary(t *topic) string {
	r := rng(uint64(t.id)<<32 | 0xfffffffe)
	var b strings.Builder
	r.sentence(&b)
	b.WriteByte('.')
	return b.String()
}

// prose returns paragraphs of minProse to minProse+proseRange bytes in all.
func prose(seed uint64) []string {
	r := rng(seed)
	size := minProse + int(r.next()%proseRange)
	var out []string
	for n := 0; n < size; {
		p := r.paragraph()
		out = append(out, p)
		n += len(p)
	}
	return out
}

// imageSize is the width and height of article id's image.
func imageSize(id int) (w, h int) { return 40 + id%25, 24 }

// imageEncoder stores rather than compresses: the pixels are mostly noise,
// which deflate shrinks little but would spend most of the site's start-up
// on.
var imageEncoder = &png.Encoder{CompressionLevel: png.NoCompression, BufferPool: new(encoderPool)}

// articleImage draws article id's image: a gradient in a colour of its own
// with noise in the low bits, so that no two articles' images are the same;
// its PNG is 3–5 KB.
func articleImage(id int) []byte {
	w, h := imageSize(id)
	r := rng(uint64(id) << 16)
	base := r.next()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			noise := r.next()
			px := img.Pix[img.PixOffset(x, y):]
			px[0] = uint8(base) + uint8(4*x) + uint8(noise&0x1f)
			px[1] = uint8(base>>8) + uint8(4*y) + uint8(noise>>8&0x1f)
			px[2] = uint8(base>>16) + uint8(noise>>16&0x1f)
			px[3] = 0xff
		}
	}
	var b bytes.Buffer
	if err := imageEncoder.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return b.Bytes()
}

// encoderPool lets the PNG encoder reuse its buffers between images.
type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}

func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }
