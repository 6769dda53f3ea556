package main

import (
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

func TestIndexPage(t *testing.T) {
	for uri, want := range map[string]int{
		"/forum/": 1, "/forum/?page=2": 2, "/forum/?page=1000": 1000,
		"/forum/?page=1": 0, "/forum/?page=x": 0, "/forum": 0, "/topic/1-a": 0, "/forum/?page=2&x=1": 0,
		"/archive/": 1, "/archive/?page=3": 3, "/archive/?page=1": 0, "/archive": 0,
		"/section/news/": 0, "/section/news/?page=2": 0, "/archive/x/?page=2": 0,
	} {
		n, ok := indexPage(uri)
		if ok != (want > 0) || n != want {
			t.Errorf("indexPage(%q) = %d, %v; want %d", uri, n, ok, want)
		}
	}
}

// The chain line times each index page's answer and the gap from one
// answer to the next request, over the pages in a row from the first; a
// second answer of a page and other pages do not count.
func TestChainTiming(t *testing.T) {
	c := chain{pages: map[int]span{}}
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	answer := func(uri string, status int, start time.Time, took time.Duration) {
		c.add(sitetest.Request{Path: uri, Status: status, Took: took}, start.Add(took))
	}
	if c.String() != "" {
		t.Fatal("a line without pages")
	}
	answer("/forum/", 200, t0, 2*ms)                  // ends at 2 ms
	answer("/topic/1-a", 200, t0.Add(2*ms), 9*ms)     // not an index page
	answer("/forum/?page=2", 200, t0.Add(3*ms), 4*ms) // gap 1 ms, ends at 7 ms
	answer("/forum/?page=2", 200, t0.Add(50*ms), 1*ms)
	answer("/forum/?page=3", 503, t0.Add(8*ms), 1*ms)
	answer("/forum/?page=3", 200, t0.Add(10*ms), 2*ms) // gap 3 ms
	answer("/forum/?page=5", 200, t0.Add(20*ms), 2*ms) // page 4 missing: not counted
	want := "chain: 3 index pages; each answered in 2.67 ms on average (median 2.00); from one answered to the next asked for, 2.00 ms on average (median 3.00)"
	if got := c.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
