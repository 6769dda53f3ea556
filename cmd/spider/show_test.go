package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// spider show explains a URL's state from the list and the fetch history:
// a page that answered 404 once (not archived yet, with the reason and the
// retry time), a page that answered 304, and a URL the list does not hold.
func TestShow(t *testing.T) {
	var mu sync.Mutex
	gone := false
	homeRequests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/":
			homeRequests++
			w.Header().Set("ETag", `"home-1"`)
			if r.Header.Get("If-None-Match") == `"home-1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte(`<a href="/page">p</a>`))
		case "/page":
			if gone {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte("a page"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	// The second 404 must not come within the test, however slow the
	// machine: the confirmation waits half an hour.
	conf := filepath.Join(dir, "spider.toml")
	if err := os.WriteFile(conf, []byte("archive_span = \"1h\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	crawl := func() {
		t.Helper()
		args := []string{"--profile", "slow", "--config", conf, "--until-idle", "--delay", "0", "--window", "1s", "--start", srv.URL + "/", "-q"}
		if code, out := spiderRun(t, dir, 30*time.Second, args...); code != 0 {
			t.Fatalf("spider exit %d:\n%s", code, out)
		}
	}
	crawl()
	mu.Lock()
	gone = true
	mu.Unlock()
	// Both lines are due again after the one-second window.
	waitAllDue(t, dir+"/spider.list", time.Second)
	crawl()

	code, out, stderr := runCLI(t, dir, "show", srv.URL+"/page")
	for _, want := range []string{"state", "error, level 1", "404 answers: 1 over 0s, 3 over 1h0m0s archive", "1 answered 404 since the last success", "first 404", "retry after", "status 404", "copy"} {
		if !strings.Contains(out, want) {
			t.Errorf("show /page: missing %q in:\n%s%s", want, out, stderr)
		}
	}
	if code != 0 {
		t.Errorf("show exit %d", code)
	}
	code, out, _ = runCLI(t, dir, "show", "--json", srv.URL+"/")
	var sh Shown
	if err := json.Unmarshal([]byte(out), &sh); err != nil || code != 0 {
		t.Fatalf("show --json: exit %d, %v:\n%s", code, err, out)
	}
	// A slow machine can take the home page more than twice (the window is
	// one second), so the attempts shown must match the server's own count.
	mu.Lock()
	served := homeRequests
	mu.Unlock()
	if !sh.Listed || sh.Line.State != "downloaded" || sh.History == nil || sh.History.Status != 304 ||
		sh.History.ETag != `"home-1"` || sh.History.Attempts != served || served < 2 ||
		sh.History.Unchanged != served-1 || sh.Copy == nil || !sh.Copy.Exists {
		t.Errorf("show --json / (server saw %d requests): %s", served, out)
	}
	if code, out, _ := runCLI(t, dir, "show", srv.URL+"/never"); code != 0 || !strings.Contains(out, "no line for this URL") {
		t.Errorf("show of an unknown URL: exit %d:\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, dir, "show", "not a url"); code != 2 || !strings.Contains(stderr, "spider: error:") {
		t.Errorf("show of a bad URL: exit %d:\n%s", code, stderr)
	}
}

// spider list duplicates groups URLs whose bodies are byte-identical.
func TestListDuplicates(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Write([]byte(`<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`))
		case "/a", "/b":
			w.Write([]byte("same body"))
		default:
			w.Write([]byte("another body"))
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	if code, out := spiderRun(t, dir, 30*time.Second, "--profile", "slow", "--until-idle", "--delay", "0", "--start", srv.URL+"/", "-q"); code != 0 {
		t.Fatalf("spider exit %d:\n%s", code, out)
	}
	code, out, stderr := runCLI(t, dir, "list", "duplicates")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasSuffix(lines[0], " "+srv.URL+"/a "+srv.URL+"/b") || lines[1] != "# identical bodies: 1 groups, 2 URLs" {
		t.Errorf("list duplicates: exit %d:\n%s%s", code, out, stderr)
	}
}
