package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// spider status lists the pages archived in the last day from the
// mirror's index, so that a spider restarted since, which remembers none
// of them, does not make them disappear.
func TestStatusArchivesSurviveRestart(t *testing.T) {
	var gone atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			w.Write([]byte(`<a href="/page">p</a>`))
		case r.URL.Path == "/page" && !gone.Load():
			w.Write([]byte("<html><body>a page</body></html>"))
		case r.URL.Path == "/page":
			w.WriteHeader(http.StatusGone)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	crawl := func() {
		t.Helper()
		args := []string{"--profile", "slow", "--until-idle", "--delay", "0", "--window", "1s", "--start", srv.URL + "/", "-q"}
		if code, out := spiderRun(t, dir, 30*time.Second, args...); code != 0 {
			t.Fatalf("spider exit %d:\n%s", code, out)
		}
	}
	crawl()
	gone.Store(true)
	waitAllDue(t, dir+"/spider.list", time.Second)
	crawl() // archives /page (410)
	waitAllDue(t, dir+"/spider.list", time.Second)
	crawl() // a restarted spider: /page is still gone, which is no news

	code, out, stderr := runCLI(t, dir, "status", "--json")
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, stderr)
	}
	var st Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.ArchivedLastDay) != 1 || st.ArchivedLastDay[0].URL != srv.URL+"/page" || st.ArchivedFrom != "mirror" {
		t.Errorf("archived in the last day %+v from %q, want %s/page from the mirror", st.ArchivedLastDay, st.ArchivedFrom, srv.URL)
	}
	if st.States["archived"] != 1 {
		t.Errorf("states %v, want 1 archived", st.States)
	}
	code, text, _ := runCLI(t, dir, "status")
	// The list recorded its mirror, as an absolute path, on the first run.
	if want := "archived in the last day: 1 (from the index of the mirror " + filepath.Join(dir, "mirror") + ")"; code != 0 || !strings.Contains(text, want) {
		t.Errorf("text status lacks %q:\n%s", want, text)
	}
	code, text, _ = runCLI(t, dir, "status", "--mirror", "elsewhere")
	if want := "archived in the last day: 0 (from the spiders' memory since each started: no index in the mirror elsewhere"; code != 0 || !strings.Contains(text, want) {
		t.Errorf("status --mirror elsewhere lacks %q:\n%s", want, text)
	}
}

// waitAllDue waits until every line of the list at path is due again
// under a window, by the list's own clock rather than sleeping a guess.
func waitAllDue(t *testing.T, path string, window time.Duration) {
	t.Helper()
	waitAllDueIn(t, func() []list.Entry { return readList(t, path) }, window)
}

// waitAllDueIn is waitAllDue for the list that read reads.
func waitAllDueIn(t *testing.T, read func() []list.Entry, window time.Duration) {
	t.Helper()
	eventually(t, 10*window, "lines due again", func() bool {
		for _, e := range read() {
			if time.Since(e.Modified) < window+window/10 {
				return false
			}
		}
		return true
	})
}

// The strings of a list.Entry share the scan's read buffer: status and
// list check must copy what they keep past a line (a claimant's name, a
// missing file, a URL counted twice), or a list longer than the buffer
// overwrites them.
func TestReadersKeepCopiesOfScannedStrings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spider.list")
	buf := []byte(list.Header + "\n")
	dup := "http://example.com/twice"
	buf = list.AppendLine(buf, &list.Entry{Spider: "alpha", Level: 0, State: list.Claimed, URL: dup}, 0)
	buf = list.AppendLine(buf, &list.Entry{File: "example.com/gone.html", Level: 1, State: list.Downloaded,
		Modified: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), URL: "http://example.com/gone"}, 0)
	for i := 0; len(buf) < 1<<20; i++ {
		buf = list.AppendLine(buf, &list.Entry{Level: 2, State: list.Found,
			URL: fmt.Sprintf("http://example.com/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz/%08d", i)}, 0)
	}
	buf = list.AppendLine(buf, &list.Entry{Level: 3, State: list.Found, URL: dup}, 0)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := list.Open(path, list.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := collectStatus(context.Background(), fileStore{l}, path, &Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Claims) != 1 || st.Claims["alpha"] != 1 {
		t.Errorf("claims %v, want alpha: 1", st.Claims)
	}
	if err := os.Mkdir(filepath.Join(dir, "mirror"), 0o755); err != nil { // a mirror without the copy
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, dir, "list", "check", "--mirror", filepath.Join(dir, "mirror"))
	if code == 0 || !strings.Contains(out, "example.com/gone.html") || !strings.Contains(out, dup) {
		t.Errorf("list check: exit %d, want the missing copy and the duplicate named:\n%s%s", code, out, stderr)
	}
}
