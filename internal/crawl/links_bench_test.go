package crawl

import (
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/sitetest"
)

// BenchmarkPageLinks is what the workers do with the test forum's pages,
// several at once: rewrite.Page with the engine's Target, whose answers
// the pages share (every topic links its neighbours, its index page and
// the site's menus).
func BenchmarkPageLinks(b *testing.B) {
	benchPageLinks(b, sitetest.Options{Topics: 300}, func(p string) bool {
		return strings.HasPrefix(p, "/topic/") || strings.HasPrefix(p, "/forum")
	})
}

// BenchmarkPageLinksArticles is BenchmarkPageLinks on the articles shape's
// pages (articles, section indexes, the archive chain), whose images are
// linked by relative paths ("../media/1.png").
func BenchmarkPageLinksArticles(b *testing.B) {
	benchPageLinks(b, sitetest.Options{Topics: 3000, Shape: sitetest.Articles}, func(p string) bool {
		return !strings.HasSuffix(p, ".png") && !strings.HasSuffix(p, ".css") && !strings.HasSuffix(p, ".txt") && !strings.HasSuffix(p, ".xml")
	})
}

// benchPageLinks runs rewrite.Page over the pages of the site opts makes
// whose paths page accepts.
func benchPageLinks(b *testing.B, opts sitetest.Options, page func(string) bool) {
	site := sitetest.New(opts)
	const base = "http://127.0.0.1:8080"
	type pageOf struct {
		url, file string
		body      []byte
	}
	var pages []pageOf
	for _, p := range site.Paths() {
		body, ok := site.Body(p)
		if !ok || !page(p) {
			continue
		}
		pages = append(pages, pageOf{base + p, "127.0.0.1:8080" + p + ".html", body})
	}
	l, m, _ := openListMirror(b)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{base + "/"}, Concurrency: 1, Now: time.Now}, l, m, fetch.New(fetch.Options{UserAgent: "test"}))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			p := pages[i%len(pages)]
			i++
			out, links, err := rewrite.Page(p.body, p.url, "text/html; charset=utf-8", e.target(p.url, p.file))
			if err != nil || len(out) == 0 || len(links) == 0 {
				b.Fatalf("%s: %d bytes, %d links, %v", p.url, len(out), len(links), err)
			}
		}
	})
}
