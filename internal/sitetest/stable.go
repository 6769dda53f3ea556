package sitetest

import (
	"fmt"
	"sort"
)

// renderStableArticles renders the Articles shape with Options.StablePages:
// the section and archive pages are buckets of article numbers that never
// move, as a blog's archive by month does, instead of pages of the newest
// first that every addition shifts.
//
//	/section/NAME/          the section's 10 newest articles (it changes as
//	                        the home page does), a link to its first page and
//	                        to its last three
//	/section/NAME/?page=P   the section's articles P*10-9 … P*10 (counted
//	                        within the section, oldest first), newest first,
//	                        with a pager to page 1 and two either side of P
//	/archive/               the 20 newest articles, "Older posts" to the
//	                        newest archive page
//	/archive/?page=P        articles 20P-19 … 20P, newest first; a page links
//	                        only the newer and the older page
//
// An article links its own section page. So adding an article changes the
// home page, its section's front page and newest page and the archive's
// front and newest page (and, when a page fills, the page before it);
// deleting one changes the pages that listed it; an edit changes the
// article alone, and the home page when announced. Page 1 is the oldest;
// a page whose articles were all deleted is still served, saying so.
func (s *Site) renderStableArticles(add addFunc, live, latest []*topic) {
	total := len(s.topics)
	secPage := func(t *topic) int { return (t.id-1)/articleSections/SectionPerPage + 1 }
	arcPage := func(t *topic) int { return (t.id-1)/ArchivePerPage + 1 }
	for i, name := range sections {
		inSection := 0 // articles ever numbered in this section
		if total > i {
			inSection = (total-1-i)/articleSections + 1
		}
		n := max(1, (inSection+SectionPerPage-1)/SectionPerPage)
		buckets := make([][]*topic, n+1)
		var front []*topic
		for _, t := range live { // newest first
			if sectionOf(t) == name {
				buckets[secPage(t)] = append(buckets[secPage(t)], t)
				if len(front) < SectionPerPage {
					front = append(front, t)
				}
			}
		}
		add(sectionPath(name, 1), htmlType, renderStableSectionFront(name, n, front))
		for p := 1; p <= n; p++ {
			add(stablePagePath("/section/"+name+"/", p), htmlType, renderStableSection(name, p, n, buckets[p]))
		}
	}
	n := max(1, (total+ArchivePerPage-1)/ArchivePerPage)
	buckets := make([][]*topic, n+1)
	for _, t := range live {
		buckets[arcPage(t)] = append(buckets[arcPage(t)], t)
	}
	add(archivePath(1), htmlType, renderStableArchive(0, n, live[:min(ArchivePerPage, len(live))]))
	for p := 1; p <= n; p++ {
		add(stablePagePath("/archive/", p), htmlType, renderStableArchive(p, n, buckets[p]))
	}
	add("/", htmlType, renderFrontPage(latest))
	add("/about", htmlType, renderMagazineAbout())
	for _, t := range live {
		add(t.path, htmlType, renderArticle(t, stableRef(sectionOf(t), secPage(t))))
		add(imagePath(t), "image/png", content{body: s.image(t)})
	}
}

// stablePagePath is page p of a stable index at dir: always dir?page=p, as
// dir itself is the index's front page.
func stablePagePath(dir string, p int) string { return dir + "?page=" + itoa(p) }

// stableRef is how an article links its page of section name.
func stableRef(name string, p int) string { return stablePagePath("/section/"+name+"/", p) }

func renderStableSectionFront(name string, n int, front []*topic) content {
	d := newPage(magazineName, "Section "+name, magazineNav)
	d.printf("<h1>Section %s</h1>\n<p>The latest articles; older ones by page, oldest first.</p>\n", name)
	listArticles(d, front)
	d.printf("<nav class=\"pager\">")
	pages := []int{1}
	for p := max(2, n-2); p <= n; p++ {
		pages = append(pages, p)
	}
	for _, p := range pages {
		d.link(`<a href="%s">`+itoa(p)+`</a> `, "?page="+itoa(p), stablePagePath("/section/"+name+"/", p))
	}
	d.printf("</nav>\n")
	return d.done()
}

func renderStableSection(name string, p, n int, list []*topic) content {
	d := newPage(magazineName, fmt.Sprintf("Section %s, page %d", name, p), magazineNav)
	d.printf("<h1>Section %s</h1>\n<p>Page %d</p>\n", name, p)
	listArticles(d, list)
	d.printf("<nav class=\"pager\">")
	d.link(`<a href="%s">Latest</a> `, "./", sectionPath(name, 1))
	// The pager never names the last page, so a new page does not change
	// every page before it.
	pages := map[int]bool{1: true}
	for q := max(1, p-pagerMid); q <= min(n, p+pagerMid); q++ {
		pages[q] = true
	}
	keys := make([]int, 0, len(pages))
	for q := range pages {
		keys = append(keys, q)
	}
	sort.Ints(keys)
	for _, q := range keys {
		if q == p {
			d.printf("<span>%d</span> ", q)
			continue
		}
		d.link(`<a href="%s">`+itoa(q)+`</a> `, "?page="+itoa(q), stablePagePath("/section/"+name+"/", q))
	}
	d.printf("</nav>\n")
	return d.done()
}

// renderStableArchive renders archive page p of n (0: the front page).
func renderStableArchive(p, n int, list []*topic) content {
	title, heading := fmt.Sprintf("Archive, page %d", p), fmt.Sprintf("<p>Page %d</p>", p)
	if p == 0 {
		title, heading = "Archive", "<p>The latest articles; older ones by page.</p>"
	}
	d := newPage(magazineName, title, magazineNav)
	d.printf("<h1>Archive</h1>\n%s\n", heading)
	listArticles(d, list)
	d.printf("<nav class=\"pager\">")
	if p > 0 && p < n {
		d.link(`<a href="%s" rel="prev">« Newer posts</a> `, "?page="+itoa(p+1), stablePagePath("/archive/", p+1))
	}
	older := p - 1
	if p == 0 {
		older = n
	}
	if older >= 1 {
		d.link(`<a href="%s" rel="next">Older posts »</a>`, "?page="+itoa(older), stablePagePath("/archive/", older))
	}
	d.printf("</nav>\n")
	return d.done()
}
