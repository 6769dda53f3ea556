package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// sizedSite serves a home page linking three pages, each of a size and
// content the test sets, and counts the requests.
type sizedSite struct {
	mu      sync.Mutex
	size    int
	version string
	hits    int
}

func (s *sizedSite) set(size int, version string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.size, s.version = size, version
}

func (s *sizedSite) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

func (s *sizedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits++
	size, version := s.size, s.version
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, `<title>%s %s</title><a href="/a">a</a><a href="/b">b</a><a href="/c">c</a><p>`, version, r.URL.Path)
	w.Write([]byte(strings.Repeat("x", size)))
}

// A mirror that cannot be written (here a file size limit, which fails the
// writes as a full disk does) makes the spider back off rather than fetch
// and fail again and again, and exit 1 with a hint; the list keeps every
// line as it was, and the good copies stay.
func TestMirrorFullBacksOffAndFails(t *testing.T) {
	site := &sizedSite{}
	site.set(10<<10, "v1")
	srv := httptest.NewServer(site)
	defer srv.Close()
	dir := t.TempDir()
	args := []string{"--profile", "slow", "--delay", "0", "--until-idle"}
	if code, out := spiderRun(t, dir, time.Minute, append(args, "--start", srv.URL+"/")...); code != 0 {
		t.Fatalf("first run: exit %d:\n%s", code, out)
	}
	before := readList(t, filepath.Join(dir, "spider.list"))
	good := map[string][]byte{}
	for _, e := range before {
		if e.State != list.Downloaded {
			t.Fatalf("first run left %+v", e)
		}
		good[e.File], _ = os.ReadFile(filepath.Join(dir, "mirror", filepath.FromSlash(e.File)))
	}
	if len(before) != 4 {
		t.Fatalf("first run: %d lines, want 4", len(before))
	}

	// Every page has grown past the limit; every line is due.
	site.set(600<<10, "v2")
	n := site.requests()
	t.Setenv("SPIDER_TEST_FSIZE", fmt.Sprint(256<<10))
	start := time.Now()
	code, out := spiderRun(t, dir, time.Minute, append(args, "--window", "1ms", "--for", "5s")...)
	took := time.Since(start)
	if code != 1 || !strings.Contains(out, "spider: error: the mirror cannot be written") || !strings.Contains(out, "spider: hint: free space") {
		t.Fatalf("exit %d after %v, want 1 with an error and a hint:\n%s", code, took, clipOut(out))
	}
	// Backing off 1 s, then 2 s, then 4 s: three rounds at most in 5 s,
	// each fetching the four pages (and robots.txt once).
	if got := site.requests() - n; got > 3*4+1 {
		t.Errorf("%d requests while the mirror could not be written, want at most %d:\n%s", got, 3*4+1, clipOut(out))
	}
	after := readList(t, filepath.Join(dir, "spider.list"))
	if len(after) != len(before) {
		t.Fatalf("%d lines, were %d", len(after), len(before))
	}
	for i, e := range after {
		if b := before[i]; e.State != b.State || e.File != b.File || e.Spider != "" || !e.Modified.Equal(b.Modified) {
			t.Errorf("line changed: %+v, was %+v", e, b)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "mirror", filepath.FromSlash(e.File))); string(got) != string(good[e.File]) {
			t.Errorf("good copy %s harmed: %.60q", e.File, got)
		}
	}
	checkMirror(t, filepath.Join(dir, "mirror"), after)
}
