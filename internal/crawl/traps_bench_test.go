package crawl

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/sitetest"
)

// BenchmarkTrapsPages is what the trap defences do for each page of the
// test site's articles shape that a first mirror reads: the page is read
// (its tokens marked) and each of its links judged once, as it is
// rewritten (decideLink: taking it asks that decision again).
func BenchmarkTrapsPages(b *testing.B) {
	site := sitetest.New(sitetest.Options{Topics: 3000, Shape: sitetest.Articles})
	const base = "http://127.0.0.1:8080"
	type page struct {
		url   string
		body  []byte
		links []judgedLink
	}
	var pages []page
	for _, p := range site.Paths() {
		body, ok := site.Body(p)
		if !ok || strings.HasSuffix(p, ".png") {
			continue
		}
		links, err := extract.HTML(base+p, "text/html; charset=utf-8", body)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, page{base + p, body, nil})
		for _, l := range links {
			pages[len(pages)-1].links = append(pages[len(pages)-1].links, judgedLink{url: l.URL})
		}
	}
	l, m, _ := openListMirror(b)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{base + "/"}, Concurrency: 1, Now: time.Now}, l, m, fetch.New(fetch.Options{UserAgent: "test"}))
	for i := range pages {
		for j := range pages[i].links {
			pages[i].links[j].url = e.follow.traps.cfg.Strip(pages[i].links[j].url) // as the rewriting decided
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%len(pages) == 0 {
			e.follow.traps = newTraps(e.cfg.Traps, slog.New(slog.DiscardHandler)) // a first mirror anew
		}
		p := pages[i%len(pages)]
		e.follow.traps.read(p.url, p.body, p.links)
		for _, l := range p.links {
			e.follow.traps.judge(l.url)
		}
	}
}
