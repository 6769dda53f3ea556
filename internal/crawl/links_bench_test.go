package crawl

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
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
	l, m, _ := openListMirror(b)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{base + "/"}, Concurrency: 1, Now: time.Now}, l, m, fetch.New(fetch.Options{UserAgent: "test"}))
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r := resps[i%len(resps)]
			i++
			en := list.Entry{URL: r.URL, Level: 2}
			o := &outcome{job: job{en: en}, res: list.Result{URL: en.URL}, rec: &meta.Record{}}
			e.store(o, r, now)
			if o.copy == nil || len(o.adds) == 0 {
				b.Fatalf("%s: stored %v, %d links taken", r.URL, o.copy != nil, len(o.adds))
			}
		}
	})
}
