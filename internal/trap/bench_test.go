package trap

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
)

// BenchmarkTokens reads a wiki-sized page: 2,000 words and 200 links.
func BenchmarkTokens(b *testing.B) {
	var body strings.Builder
	var links []string
	for i := range 2000 {
		fmt.Fprintf(&body, "<p>%s</p> ", vocab[i%len(vocab)])
		if i%10 == 0 {
			links = append(links, fmt.Sprintf("http://w.example/wiki/Article_%d", i))
		}
	}
	seed := maphash.MakeSeed()
	page := []byte(body.String())
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		Tokens(seed, "w.example/wiki/Article_N", page, links, Pattern)
	}
}

// BenchmarkJudge is what each link found costs in pure rules: its
// machinery, pattern and shape.
func BenchmarkJudge(b *testing.B) {
	urls := []string{
		"http://w.example/index.php?title=Article_12&action=edit",
		"http://w.example/wiki/Article_12",
		"http://w.example/calendar/2026-11-21",
		"http://w.example/shop?color=red&size=m&page=3",
	}
	for b.Loop() {
		for _, u := range urls {
			Machinery(u)
			Pattern(u)
			Shape(u)
			Dated(u)
		}
	}
}

var vocab = strings.Fields("river stone lantern harbour meadow signal copper orchard valley thread engine winter")
