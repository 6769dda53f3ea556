package main

import (
	"fmt"
	"net/http"
	"sync"
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

func (c *counter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &codeWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests++
		if sw.code == 0 || sw.code == http.StatusOK {
			c.ok[r.URL.RequestURI()] = true
		} else {
			c.other++
		}
	})
}

// String is the line printed at exit.
func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("served: %d requests, %d distinct URIs answered 200, %d other answers", c.requests, len(c.ok), c.other)
}

// codeWriter remembers the status code sent.
type codeWriter struct {
	http.ResponseWriter
	code int
}

func (w *codeWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *codeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
