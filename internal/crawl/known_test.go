package crawl

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// knownLines holds every visited line of the list and no other, but for
// its rare false positives: never a false negative, however many chunks
// the list is read in.
func TestKnownLines(t *testing.T) {
	var k knownLines
	if k.has("http://h/p/0") {
		t.Error("an empty filter knows a URL")
	}
	l := listOfPages(t, 20000, 2)
	defer func(c int) { knownChunk = c }(knownChunk)
	knownChunk = 4 << 10 // about 400 chunks
	if err := k.fill(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	falsePos := 0
	for i := range 20000 {
		u := fmt.Sprintf("http://h/p/%d", i)
		switch {
		case i%2 == 0 && !k.has(u):
			t.Fatalf("%s, downloaded, not known", u)
		case i%2 == 1 && k.has(u):
			falsePos++
		}
	}
	if k.n != 10000 || falsePos > 10 {
		t.Errorf("%d URLs added, %d of 10,000 unvisited taken for known; want 10,000 and about none", k.n, falsePos)
	}
}

// listOfPages returns a list of n pages, http://h/p/0 to n-1, every
// every-th of them downloaded (the first too), the others found.
func listOfPages(t *testing.T, n, every int) *list.List {
	t.Helper()
	l, _, _ := openListMirror(t)
	var adds []list.Add
	var results []list.Result
	for i := range n {
		u := fmt.Sprintf("http://h/p/%d", i)
		adds = append(adds, list.Add{URL: u, Level: 1})
		if i%every == 0 {
			results = append(results, list.Result{URL: u, State: list.Downloaded, File: fmt.Sprintf("h/p/%d.html", i)})
		}
	}
	// Results are recorded for lines the spider claimed: all are claimed
	// first.
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, c := range []*list.Cycle{{Add: adds}, {Pick: claimAll{}}, {Results: results}} {
		c.Spider, c.Now = "s", now
		if err := l.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// claimAll claims every line.
type claimAll struct{}

func (claimAll) Due(*list.Entry) bool       { return true }
func (claimAll) Less(a, b *list.Entry) bool { return a.URL < b.URL }
func (claimAll) Max() int                   { return 1 << 20 }

// A list rewritten by another spider while knownLines reads it (between two
// chunks) is read again from the start: no visited line is missed.
func TestKnownLinesListRewritten(t *testing.T) {
	l := listOfPages(t, 2000, 1)
	defer func(c int, f func()) { knownChunk, betweenChunks = c, f }(knownChunk, betweenChunks)
	knownChunk = 4 << 10
	compactions := 0
	betweenChunks = func() {
		if compactions++; compactions == 3 {
			if _, err := l.Compact(context.Background()); err != nil {
				t.Error(err)
			}
		}
	}
	var k knownLines
	if err := k.fill(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if u := fmt.Sprintf("http://h/p/%d", i); !k.has(u) {
			t.Fatalf("%s, downloaded, not known after the list was rewritten during the read", u)
		}
	}
}
