package main

import (
	"fmt"
	"net/http"
	"sync"
	"time"

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
	chain    chain
}

func newCounter() *counter {
	return &counter{ok: map[string]bool{}, chain: chain{pages: map[int]span{}}}
}

// add counts one request the site answered (sitetest.Options.OnRequest).
func (c *counter) add(r sitetest.Request) {
	end := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.chain.add(r, end)
	c.requests++
	if r.Status == 0 || r.Status == http.StatusOK {
		c.ok[r.Path] = true
	} else {
		c.other++
	}
}

// String is what is printed at exit: what was served, and the chain's
// timing on a second line (chain.go) if there is one.
func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := fmt.Sprintf("served: %d requests, %d distinct URIs answered 200, %d other answers", c.requests, len(c.ok), c.other)
	if ch := c.chain.String(); ch != "" {
		s += "\n" + ch
	}
	return s
}
