package sitetest

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	htmlType = "text/html; charset=utf-8"
	siteName = "Spider Test Forum"
	cssPath  = "/static/site.css"
	logoPath = "/static/logo.png"
)

// rebuildLocked renders every page from the current state, carries ETag and
// Last-Modified over for unchanged bodies (also of pages that vanished and
// came back, such as an index page after deletions and additions), and recomputes link levels. The
// site is small, so rendering everything on each mutation is simpler and
// safer than tracking which pages a mutation touches.
func (s *Site) rebuildLocked() {
	now := s.now().UTC().Truncate(time.Second)
	next := make(map[string]*page, len(s.pages))
	add := func(key, ctype string, c content) {
		p := &page{body: c.body, ctype: ctype, links: c.links}
		sum := digest(c.body)
		old, seen := s.stamps[key]
		p.ver = old.ver + 1
		if seen && old.sum == sum {
			p.ver = old.ver
		}
		if s.opt.Versioned && ctype == htmlType {
			p.body = markVersion(c.body, p.ver)
		}
		p.etag = `"` + digest(p.body) + `"`
		switch {
		case seen && old.etag == p.etag:
			p.mod = old.mod
		case seen && !now.After(old.mod):
			p.mod = old.mod.Add(time.Second)
		default:
			p.mod = now
		}
		s.stamps[key] = stamp{p.etag, sum, p.mod, p.ver}
		next[key] = p
	}

	live := make([]*topic, 0, len(s.topics)) // newest first
	for i := len(s.topics) - 1; i >= 0; i-- {
		if t := s.topics[i]; !t.deleted {
			live = append(live, t)
		}
	}
	latest := append([]*topic(nil), live...)
	sort.SliceStable(latest, func(i, j int) bool { return latest[i].announced > latest[j].announced })
	latest = latest[:min(LatestLen, len(latest))]

	switch {
	case s.opt.Shape == Articles && s.opt.StablePages:
		s.renderStableArticles(add, live, latest)
	case s.opt.Shape == Articles:
		s.renderArticles(add, live, latest)
	default:
		renderForum(add, live, latest)
	}
	add(cssPath, "text/css; charset=utf-8", content{[]byte(siteCSS), []string{logoPath}})
	add(logoPath, "image/png", content{body: logoPNG})
	// Served, but linked from nowhere, so not part of Paths.
	add("/robots.txt", "text/plain; charset=utf-8", content{body: []byte("User-agent: *\nDisallow:\n")})

	s.pages = next
	s.levels = levels(next)
}

// addFunc adds a rendered page to the site being built, at key.
type addFunc func(key, ctype string, c content)

// renderForum renders the forum's pages: live topics newest first, latest
// in the home page's order.
func renderForum(add addFunc, live, latest []*topic) {
	nPages := max(1, (len(live)+PerPage-1)/PerPage)
	pageOf := make(map[*topic]int, len(live))
	for i, t := range live {
		pageOf[t] = i/PerPage + 1
	}
	add("/", htmlType, renderHome(latest))
	add("/about", htmlType, renderAbout())
	for p := 1; p <= nPages; p++ {
		lo, hi := (p-1)*PerPage, min(p*PerPage, len(live))
		add(indexPath(p), htmlType, renderIndex(p, nPages, live[lo:hi]))
	}
	for i, t := range live {
		var newer, older *topic
		if i > 0 {
			newer = live[i-1]
		}
		if i+1 < len(live) {
			older = live[i+1]
		}
		add(t.path, htmlType, renderTopic(t, pageOf[t], newer, older))
		if t.hasReplies {
			add(repliesPath(t), htmlType, renderReplies(t))
		}
	}
}

// levels is a breadth-first walk of the link graph from "/".
func levels(pages map[string]*page) map[string]int {
	lv := map[string]int{"/": 0}
	queue := []string{"/"}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, l := range pages[k].links {
			if _, seen := lv[l]; seen || pages[l] == nil {
				continue
			}
			lv[l] = lv[k] + 1
			queue = append(queue, l)
		}
	}
	return lv
}

func indexPath(p int) string { return pagedPath("/forum/", p) }

// doc accumulates one HTML page and the site keys it links to.
type doc struct {
	b     strings.Builder
	links []string
}

// navLink is one link of a page header's navigation bar.
type navLink struct{ href, text string }

var forumNav = []navLink{{"/", "Home"}, {"/forum/", "Forum"}, {"/about", "About"}}

func newDoc(title string) *doc { return newPage(siteName, title, forumNav) }

// newPage starts a page of the named site: head, header and navigation bar.
func newPage(site, title string, nav []navLink) *doc {
	d := &doc{}
	fmt.Fprintf(&d.b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"+charsetMeta+"<title>%s — %s</title>\n",
		html.EscapeString(title), site)
	d.link(`<link rel="stylesheet" href="%s">`+"\n", cssPath, cssPath)
	d.b.WriteString("</head>\n<body>\n<header id=\"top\">\n")
	d.link(`<a href="%s">`, "/", "/")
	d.link(`<img src="%s" alt="" width="16" height="16">`, logoPath, logoPath)
	d.b.WriteString(site + "</a>\n<nav>")
	for i, n := range nav {
		sep := " | "
		if i == len(nav)-1 {
			sep = ""
		}
		d.link(`<a href="%s">`+n.text+`</a>`+sep, n.href, n.href)
	}
	d.b.WriteString("</nav>\n</header>\n<main>\n")
	return d
}

// link writes format with href substituted (HTML-escaped) and records key,
// the site path href resolves to ("" for off-site links).
func (d *doc) link(format, href, key string) {
	fmt.Fprintf(&d.b, format, html.EscapeString(href))
	if key != "" {
		d.links = append(d.links, key)
	}
}

func (d *doc) printf(format string, a ...any) { fmt.Fprintf(&d.b, format, a...) }

// content is a rendered body and the site keys it links to.
type content struct {
	body  []byte
	links []string
}

func (d *doc) done() content {
	d.b.WriteString("</main>\n<footer><a href=\"#top\">Back to top</a></footer>\n</body>\n</html>\n")
	return content{[]byte(d.b.String()), d.links}
}

func renderHome(latest []*topic) content {
	d := newDoc("Home")
	d.printf("<h1>%s</h1>\n<section id=\"latest\">\n<h2>Latest</h2>\n<ol>\n", siteName)
	for _, t := range latest {
		d.link(`<li><a href="%s">`, t.path, t.path)
		d.printf("%s</a> <small>revision %d</small></li>\n", html.EscapeString(t.title), t.rev)
	}
	d.printf("</ol>\n</section>\n<p>")
	d.link(`<a href="%s">All topics</a> · `, "/forum/", "/forum/")
	d.link(`<a href="%s">About this forum</a></p>`+"\n", "/about", "/about")
	return d.done()
}

func renderAbout() content {
	d := newDoc("About")
	d.printf("<h1>About</h1>\n<p>%s is a fixture for spider's tests. It changes while you crawl it.</p>\n<p>", siteName)
	d.link(`Powered by <a href="%s">an off-site link</a>; `, "https://example.org/", "")
	d.link(`write to <a href="%s">the admin</a>. `, "mailto:admin@example.invalid", "")
	d.link(`Start at <a href="%s">the forum</a>.</p>`+"\n", "./forum/", "/forum/")
	return d.done()
}

func renderIndex(p, n int, topics []*topic) content {
	d := newDoc(fmt.Sprintf("Forum, page %d", p))
	d.printf("<h1>Forum</h1>\n<p>Page %d of %d</p>\n<ul class=\"topics\">\n", p, n)
	if len(topics) == 0 {
		d.printf("<li>No topics yet.</li>\n")
	}
	for _, t := range topics {
		d.link(`<li><a href="%s">`, t.path, t.path)
		d.printf("%s</a></li>\n", html.EscapeString(t.title))
	}
	d.printf("</ul>\n<nav class=\"pager\">")
	// Only the neighbouring pages are linked, so page p is at level p.
	switch {
	case p == 2:
		d.link(`<a href="%s" rel="prev">« Newer</a> `, "./", "/forum/")
	case p > 2:
		d.link(`<a href="%s" rel="prev">« Newer</a> `, "?page="+itoa(p-1), indexPath(p-1))
	}
	if p < n {
		d.link(`<a href="%s" rel="next">Older »</a>`, "?page="+itoa(p+1), indexPath(p+1))
	}
	d.printf("</nav>\n")
	return d.done()
}

func renderTopic(t *topic, p int, newer, older *topic) content {
	d := newDoc(t.title)
	d.printf("<article>\n<h1>%s</h1>\n<p class=\"meta\">Topic #%d, revision %d. ", html.EscapeString(t.title), t.id, t.rev)
	d.link(`<a href="%s">Back to forum page `+itoa(p)+`</a></p>`+"\n", indexPath(p), indexPath(p))
	for _, para := range paragraphs(uint64(t.id)<<32|uint64(t.rev), 2+t.id%3) {
		d.printf("<p>%s</p>\n", para)
	}
	if t.hasReplies {
		d.link(`<p><a href="%s">Read the replies</a></p>`+"\n", t.seg+"/replies", repliesPath(t))
	}
	d.printf("</article>\n<nav class=\"related\">")
	if older != nil {
		d.link(`<a href="%s" rel="prev">`, older.path, older.path)
		d.printf("Older: %s</a> ", html.EscapeString(older.title))
	}
	if newer != nil {
		d.link(`<a href="%s" rel="next">`, newer.path, newer.path)
		d.printf("Newer: %s</a> ", html.EscapeString(newer.title))
	}
	d.link(`<a href="%s">Home</a></nav>`+"\n", "/", "/")
	return d.done()
}

func renderReplies(t *topic) content {
	d := newDoc("Replies: " + t.title)
	d.printf("<h1>Replies to %s</h1>\n<p>", html.EscapeString(t.title))
	d.link(`<a href="%s">Back to the topic</a></p>`+"\n<ol>\n", "../"+t.seg, t.path)
	for i, para := range paragraphs(uint64(t.id)<<32|0xffffffff, 2+t.id%4) {
		d.printf("<li id=\"r%d\">%s</li>\n", i+1, para)
	}
	d.printf("</ol>\n")
	return d.done()
}

// words feed the deterministic generator of titles and text.
var words = strings.Fields(`amber anchor apple bridge canyon cedar cloud copper
crawler delta ember engine falcon fern garden glacier harbor hazel index
island juniper kettle lantern ledger maple meadow mirror needle orbit pebble
pepper quartz raven ribbon river saddle signal spider spruce thimble timber
tunnel valley velvet walnut willow yarrow zephyr`)

// rng is splitmix64: tiny, seedable, and stable across Go releases.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) word() string { return words[r.next()%uint64(len(words))] }

func topicTitle(id int) string {
	r := rng(id)
	w := []string{r.word(), r.word(), r.word()}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ")
}

func paragraphs(seed uint64, n int) []string {
	r := rng(seed)
	out := make([]string, n)
	for i := range out {
		out[i] = r.paragraph()
	}
	return out
}

// paragraph returns 2–4 sentences of 5–12 words.
func (r *rng) paragraph() string {
	var b strings.Builder
	for s := 0; s < 2+int(r.next()%3); s++ {
		r.sentence(&b)
		b.WriteString(". ")
	}
	return strings.TrimSpace(b.String())
}

// sentence writes 5–12 words, the first capitalised, without a full stop.
func (r *rng) sentence(b *strings.Builder) {
	k := 5 + int(r.next()%8)
	for j := 0; j < k; j++ {
		w := r.word()
		if j == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

const siteCSS = `body { font-family: sans-serif; max-width: 40em; margin: 1em auto; }
header { background: #eef url("logo.png") no-repeat right center; padding: .5em; }
.meta, small { color: #666; }
`

// logoPNG is a 16×16 image, encoded once at init.
var logoPNG = func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			c := color.NRGBA{R: 0x33, G: 0x66, B: 0x99, A: 0xff}
			if x == y || x == 15-y || x == 8 || y == 8 {
				c = color.NRGBA{A: 0xff}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()
