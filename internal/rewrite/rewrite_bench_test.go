package rewrite

import (
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/sitetest"
)

// benchPage returns a topic page of the project's test forum (about 1.5
// KB, 15 links) and a Target that maps its links to relative file names.
func benchPage(b *testing.B) (base string, body []byte, target Target) {
	b.Helper()
	site := sitetest.New(sitetest.Options{Topics: 30})
	for _, p := range site.Paths() {
		if strings.HasPrefix(p, "/topic/") {
			body, _ = site.Body(p)
			base = "http://127.0.0.1:8080" + p
			break
		}
	}
	target = func(abs string, _ htmlurl.Kind) (string, bool) {
		return "../" + strings.TrimPrefix(abs, "http://127.0.0.1:8080/") + ".html", true
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	return base, body, target
}

// BenchmarkHTML rewrites the links of one topic page to relative file
// names, as a worker does before writing it into the mirror.
func BenchmarkHTML(b *testing.B) {
	base, body, target := benchPage(b)
	for b.Loop() {
		out, err := HTML(body, base, "text/html; charset=utf-8", target)
		if err != nil || len(out) == len(body) {
			b.Fatalf("%d bytes in, %d out, %v", len(body), len(out), err)
		}
	}
}

// BenchmarkHTMLLinks rewrites a page's links and collects them, in one
// pass of the tokenizer.
func BenchmarkHTMLLinks(b *testing.B) { benchLinks(b, HTMLLinks) }

// BenchmarkPage is what a worker does with a fetched page: HTMLLinks, and
// the page's encoding declared in the file (Charset), whose place the same
// pass finds.
func BenchmarkPage(b *testing.B) { benchLinks(b, Page) }

// BenchmarkHTMLLinksCharset is what a worker did before Page: HTMLLinks,
// then Charset with a pass of its own.
func BenchmarkHTMLLinksCharset(b *testing.B) {
	benchLinks(b, func(body []byte, base, ct string, target Target) ([]byte, []extract.Link, error) {
		out, links, err := HTMLLinks(body, base, ct, target)
		return Charset(out, ct), links, err
	})
}

// benchLinks runs f, HTMLLinks or a function like it, on benchPage's page.
func benchLinks(b *testing.B, f func(body []byte, base, ct string, target Target) ([]byte, []extract.Link, error)) {
	base, body, target := benchPage(b)
	for b.Loop() {
		out, links, err := f(body, base, "text/html; charset=utf-8", target)
		if err != nil || len(out) == len(body) || len(links) == 0 {
			b.Fatalf("%d bytes in, %d out, %d links, %v", len(body), len(out), len(links), err)
		}
	}
}
