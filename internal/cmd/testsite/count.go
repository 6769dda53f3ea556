package main

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// counter counts the requests the site answers, and the distinct request
// URIs answered 200, so a benchmark can compare what each crawler fetched
// (scripts/bench-crawl reads the line it prints at exit).
type counter struct {
	mu       sync.Mutex
	requests int
	ok       map[string]bool
	other    int
}

func newCounter() *counter { return &counter{ok: map[string]bool{}} }

// add counts one request the site answered (sitetest.Options.OnRequest).
func (c *counter) add(r sitetest.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if r.Status == 0 || r.Status == http.StatusOK {
		c.ok[r.Path] = true
	} else {
		c.other++
	}
}

// String is the line printed at exit.
func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("served: %d requests, %d distinct URIs answered 200, %d other answers", c.requests, len(c.ok), c.other)
}
