package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spider show says how many of a page's links the per-host budget held
// back at its last visit: a home page with three links and
// max_new_per_host = 1 holds two back (the run takes them at its next
// passes; the history says so until the page's next visit).
func TestShowHeldLinks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Write([]byte(`<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`))
			return
		}
		w.Write([]byte("leaf"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "spider.toml")
	if err := os.WriteFile(conf, []byte("[limits]\nmax_new_per_host = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--profile", "slow", "--config", conf, "--until-idle", "--delay", "0", "--start", srv.URL + "/", "-q"}
	if code, out := spiderRun(t, dir, 30*time.Second, args...); code != 0 {
		t.Fatalf("spider exit %d:\n%s", code, out)
	}
	code, out, stderr := runCLI(t, dir, "show", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "links held back") || !strings.Contains(out, "2 at the last visit, past the per-host budget") {
		t.Errorf("show /: exit %d, want the two links held back in:\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, dir, "show", "--json", srv.URL+"/")
	var sh Shown
	if err := json.Unmarshal([]byte(out), &sh); err != nil || code != 0 || sh.History == nil || len(sh.History.Held) != 2 {
		t.Errorf("show --json /: exit %d, %v:\n%s", code, err, out)
	}
}
