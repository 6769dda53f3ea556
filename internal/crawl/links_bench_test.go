package crawl

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
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
	e := slowEngine(b, base+"/", nil)
	eachInParallel(b, len(pages), func(i int) {
		p := pages[i]
		out, links, err := rewrite.Page(p.body, p.url, "text/html; charset=utf-8", e.target(p.url, p.file))
		if err != nil || len(out) == 0 || len(links) == 0 {
			b.Fatalf("%s: %d bytes, %d links, %v", p.url, len(out), len(links), err)
		}
	})
}

// eachInParallel runs f on the items 0 to n-1, in turn and over again,
// from every goroutine of b.RunParallel, b.N times in all.
func eachInParallel(b *testing.B, n int, f func(i int)) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			f(i % n)
		}
	})
}

// BenchmarkStoreTopics is what a worker does with each forum topic page it
// fetched, several at once: Engine.store, the rewrite into the mirror,
// the links taken, the change model's page links, the trap counts. Each
// topic is stored as a first visit at level 2, so every link is judged
// as on a first mirror.
func BenchmarkStoreTopics(b *testing.B) {
	site := sitetest.New(sitetest.Options{Topics: 300})
	const base = "http://127.0.0.1:8080"
	var resps []*fetch.Response
	for _, p := range site.Paths() {
		body, ok := site.Body(p)
		if ok && strings.HasPrefix(p, "/topic/") {
			resps = append(resps, &fetch.Response{URL: base + p, Status: 200, MediaType: "text/html",
				Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: body})
		}
	}
	e := slowEngine(b, base+"/", nil)
	now := time.Now()
	eachInParallel(b, len(resps), func(i int) {
		r := resps[i]
		en := list.Entry{URL: r.URL, Level: 2}
		o := &outcome{job: job{en: en}, res: list.Result{URL: en.URL}, rec: &meta.Record{}}
		e.store(o, r, now)
		if o.copy == nil || len(o.adds) == 0 {
			b.Fatalf("%s: stored %v, %d links taken", r.URL, o.copy != nil, len(o.adds))
		}
	})
}
