package extract

import (
	"testing"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// benchPage is a topic page of the project's test forum, the kind of page
// a first mirror of it parses 10,000 times: about 1.5 KB, 15 links.
func benchPage(b *testing.B) (base string, body []byte) {
	b.Helper()
	site := sitetest.New(sitetest.Options{Topics: 30})
	for _, p := range site.Paths() {
		if len(p) > len("/topic/") && p[:len("/topic/")] == "/topic/" {
			body, _ := site.Body(p)
			return "http://127.0.0.1:8080" + p, body
		}
	}
	b.Fatal("no topic page")
	return "", nil
}

// BenchmarkHTML is parse + extract of one page: what a worker does to find
// a page's links.
func BenchmarkHTML(b *testing.B) {
	base, body := benchPage(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		links, err := HTML(base, "text/html; charset=utf-8", body)
		if err != nil || len(links) == 0 {
			b.Fatalf("%d links, %v", len(links), err)
		}
	}
}
