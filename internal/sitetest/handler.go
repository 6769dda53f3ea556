package sitetest

import (
	"bytes"
	"net/http"
	"time"

	"github.com/spider-mirror/spider/internal/statusrec"
)

// Handler returns the site's HTTP handler. It answers GET and HEAD (other
// methods get 405), logs every request (see Requests), and sleeps
// Options.Latency first; a request whose context ends during that sleep is
// answered at once with 503 Service Unavailable.
//
// Besides the pages in Paths and /robots.txt the forum answers two
// redirects, as real forums do: /forum → /forum/ and /forum/?page=1 →
// /forum/ (301). Everything else is 404, including a known path with an
// unexpected query string; a deleted topic or replies page (an article or
// its image) is 404, or 410 with Options.Gone410.
func (s *Site) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Site) serveHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := statusrec.New(w)
	if s.sleep(r) {
		s.serve(sw, r)
	} else {
		// The client has gone, or the server is shutting down: an error
		// status, never an empty 200 that a mirror could mistake for a page.
		sw.Header().Set("Retry-After", "1")
		http.Error(sw, "request cancelled", http.StatusServiceUnavailable)
	}
	s.record(Request{
		Time:      s.now(),
		Method:    r.Method,
		Path:      r.URL.RequestURI(),
		Status:    sw.Status(),
		UserAgent: r.UserAgent(),
		Took:      time.Since(start),
	})
}

// sleep waits Options.Latency and reports whether the client is still there.
func (s *Site) sleep(r *http.Request) bool {
	if s.opt.Latency <= 0 {
		return true
	}
	t := time.NewTimer(s.opt.Latency)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

func (s *Site) serve(w *statusrec.Writer, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if s.opt.Shape == Forum && (r.URL.Path == "/forum" && r.URL.RawQuery == "" ||
		r.URL.Path == "/forum/" && r.URL.RawQuery == "page=1") {
		http.Redirect(w, r, "/forum/", http.StatusMovedPermanently)
		return
	}
	// Any valid percent-encoding of a path finds the same page.
	key := pathKey(r.URL.Path, r.URL.RawQuery)

	s.mu.RLock()
	p, gone := s.pages[key], s.gone[key]
	s.mu.RUnlock()

	if p == nil {
		code := http.StatusNotFound
		if gone && s.opt.Gone410 {
			code = http.StatusGone
		}
		w.Header().Set("Content-Type", htmlType)
		w.WriteHeader(code)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte("<!DOCTYPE html>\n<title>" + http.StatusText(code) + "</title>\n<h1>" + http.StatusText(code) + "</h1>\n"))
		}
		return
	}
	h := w.Header()
	h.Set("Content-Type", p.ctype)
	h.Set("ETag", p.etag)
	h.Set("Cache-Control", "no-cache")
	// ServeContent does Last-Modified, If-None-Match (which takes precedence),
	// If-Modified-Since, HEAD and Range.
	http.ServeContent(w, r, "", p.mod, bytes.NewReader(p.body))
}
