package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// spider show explains a URL's state from the list and the fetch history:
// a page that answered 404 once (not archived yet, with the reason and the
// retry time), a page that answered 304, and a URL the list does not hold.
// On a list in PostgreSQL the two runs have state directories of their
// own, as on two machines: the second run's conditional GET, and what show
// says, come from the history in the database.
func TestShow(t *testing.T) {
	for _, store := range []string{"file", "postgres"} {
		t.Run(store, func(t *testing.T) { testShow(t, store) })
	}
}

func testShow(t *testing.T, store string) {
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
	conf := filepath.Join(dir, "spider.toml")
	if err := os.WriteFile(conf, []byte(archiveHour), 0o644); err != nil {
		t.Fatal(err)
	}
	first, second := conf, conf
	read := func() []list.Entry { return readList(t, dir+"/spider.list") }
	if store == "postgres" {
		pg, schema := pgConfig(t, dir, archiveHour)
		first, second = pgMachine(t, pg, "machine-a"), pgMachine(t, pg, "machine-b")
		read = func() []list.Entry { return readPG(t, schema) }
		t.Cleanup(func() { noSharedStateFiles(t, filepath.Join(dir, "machine-a"), filepath.Join(dir, "machine-b")) })
	}
	crawl := func(conf string) {
		t.Helper()
		args := []string{"--profile", "slow", "--config", conf, "--until-idle", "--delay", "0", "--window", "1s", "--start", srv.URL + "/", "-q"}
		if code, out := spiderRun(t, dir, 30*time.Second, args...); code != 0 {
			t.Fatalf("spider exit %d:\n%s", code, out)
		}
	}
	crawl(first)
	mu.Lock()
	gone = true
	mu.Unlock()
	// Both lines are due again after the one-second window.
	waitAllDueIn(t, read, time.Second)
	crawl(second)
	conf = second

	code, out, stderr := runCLI(t, dir, "show", "--config", conf, srv.URL+"/page")
	for _, want := range []string{"state", "error, level 1", "404 answers: 1 over 0s, 3 over 1h0m0s archive", "1 answered 404 since the last success", "first 404", "retry after", "status 404", "copy"} {
		if !strings.Contains(out, want) {
			t.Errorf("show /page: missing %q in:\n%s%s", want, out, stderr)
		}
	}
	if code != 0 {
		t.Errorf("show exit %d", code)
	}
	code, out, _ = runCLI(t, dir, "show", "--config", conf, "--json", srv.URL+"/")
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
	// The line's due is the list's: a start page's poll, after its copy.
	var home list.Entry
	for _, e := range read() {
		if e.URL == srv.URL+"/" {
			home = e
		}
	}
	if !home.Due.After(home.Modified) || sh.Line.Due == nil || !sh.Line.Due.Equal(home.Due) || sh.Line.Hinted {
		t.Errorf("show --json / line due %v, hinted %v; want the list's %v, not hinted", sh.Line.Due, sh.Line.Hinted, home.Due)
	}
	if code, out, _ := runCLI(t, dir, "show", "--config", conf, srv.URL+"/never"); code != 0 || !strings.Contains(out, "no line for this URL") {
		t.Errorf("show of an unknown URL: exit %d:\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, dir, "show", "--config", conf, "not a url"); code != 2 || !strings.Contains(stderr, "spider: error:") {
		t.Errorf("show of a bad URL: exit %d:\n%s", code, stderr)
	}
}

// spider show says whether a page is a listing (its links changed at one
// of its latest visits), at which level and for how many more visits;
// of a page that is none it says nothing.
func TestShowListing(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  meta.Record
		want string
	}{
		{"a listing", meta.Record{URL: "http://h/s/", Listing: 3, ListingLevel: 1}, "(level 1): a change of the links of a shallower page that links it marks it too; 3 more visits"},
		{"none", meta.Record{URL: "http://h/a"}, ""},
		{"a start page, which no page is shallower than", meta.Record{URL: "http://h/", Listing: 3}, "(level 0): 3 more visits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			printHistory(func(label, format string, a ...any) {
				if label == "listing" {
					got = append(got, fmt.Sprintf(format, a...))
				}
			}, &tc.rec)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("listing rows %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want) || !strings.Contains(got[0], "3 more visits")):
				t.Errorf("listing rows %q, want one with %q and 3 more visits", got, tc.want)
			}
		})
	}
}

// archiveHour keeps a second 404 from coming within a test, however slow
// the machine: the confirmation waits half an hour.
const archiveHour = "archive_span = \"1h\"\n"

// spider list duplicates groups URLs whose bodies are byte-identical,
// from the history in the database for a list in PostgreSQL.
func TestListDuplicates(t *testing.T) {
	for _, store := range []string{"file", "postgres"} {
		t.Run(store, func(t *testing.T) { testListDuplicates(t, store) })
	}
}

func testListDuplicates(t *testing.T, store string) {
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
	var where []string
	if store == "postgres" {
		pg, _ := pgConfig(t, dir, "")
		where = []string{"--config", pgMachine(t, pg, "machine-a")}
		t.Cleanup(func() { noSharedStateFiles(t, filepath.Join(dir, "machine-a")) })
	}
	args := append([]string{"--profile", "slow", "--until-idle", "--delay", "0", "--start", srv.URL + "/", "-q"}, where...)
	if code, out := spiderRun(t, dir, 30*time.Second, args...); code != 0 {
		t.Fatalf("spider exit %d:\n%s", code, out)
	}
	if store == "postgres" {
		// Another machine reads the duplicates from the database.
		pg := filepath.Join(dir, "pg.toml")
		where = []string{"--config", pgMachine(t, pg, "machine-b")}
	}
	code, out, stderr := runCLI(t, dir, append([]string{"list", "duplicates"}, where...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasSuffix(lines[0], " "+srv.URL+"/a "+srv.URL+"/b") || lines[1] != "# identical bodies: 1 groups, 2 URLs" {
		t.Errorf("list duplicates: exit %d:\n%s%s", code, out, stderr)
	}
}
