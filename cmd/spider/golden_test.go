package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/extract"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from this run")

// TestMirrorGolden mirrors the small static site in testdata/site, served
// by net/http's file server, with the real spider, and compares the
// mirror and the list with testdata/golden: every file byte for byte, and
// every line's level, state and file. The site holds what a mirror of a
// real one meets: a directory without its trailing slash and index.html
// (both redirected), a query on a page, a fragment, percent-encoded and raw
// UTF-8 paths, a windows-1251 page whose link query is encoded in
// windows-1251, <base href>, srcset, an iframe, style attributes, CSS with
// url() and @import, a plain-text file, an off-site link, mailto, and a
// page the server answers 404.
//
// Then it checks what makes the mirror browsable from disk: every link of
// every mirrored page is either left absolute (off-site, mailto) or a
// relative reference to a file that is in the mirror, except the one page
// that the site does not have.
//
// After a deliberate change of the mirror's output, rewrite the golden
// files with go test ./cmd/spider -run TestMirrorGolden -update, and read
// the diff before committing it.
func TestMirrorGolden(t *testing.T) {
	site := filepath.Join("..", "..", "testdata", "site")
	golden := filepath.Join("..", "..", "testdata", "golden")
	files := http.FileServer(http.Dir(site))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Pages go out as "text/html" without a charset, as Apache sends
		// them by default, so each page's <meta charset> decides (the
		// file server would say UTF-8 for all).
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	code, out := spiderRun(t, dir, time.Minute, "--profile", "slow", "--until-idle", "--delay", "0",
		"--start", srv.URL+"/", "--list", "spider.list", "--mirror", "mirror", "-q")
	if code != 0 {
		t.Fatalf("spider exited %d:\n%s", code, out)
	}
	u, _ := url.Parse(srv.URL)
	es := readList(t, filepath.Join(dir, "spider.list"))
	checkMirror(t, filepath.Join(dir, "mirror"), es)

	// The list, with the server's address and port made "HOST".
	var lines []string
	hostDir := ""
	for _, e := range es {
		file := e.File
		if file != "" {
			first, rest, _ := strings.Cut(file, "/")
			if hostDir != "" && first != hostDir {
				t.Errorf("%s: file %s is not in the host's directory %s", e.URL, file, hostDir)
			}
			hostDir, file = first, "HOST/"+rest
		}
		if file == "" {
			file = "-"
		}
		lines = append(lines, fmt.Sprintf("%d %s %s %s", e.Level, e.State, file, strings.Replace(e.URL, u.Host, "HOST", 1)))
	}
	slices.Sort(lines)
	gotList := strings.Join(lines, "\n") + "\n"
	if hostDir == "" {
		t.Fatal("no file mirrored")
	}
	mirrorHost := filepath.Join(dir, "mirror", hostDir)
	got := readTree(t, mirrorHost)
	// The golden copies are named with each path segment escaped
	// (url.PathEscape): mirror names hold '?', which neither a module zip
	// nor Windows allows, and non-ASCII.
	gotEscaped := map[string][]byte{}
	for name, b := range got {
		gotEscaped[escapePath(name)] = b
	}

	if *update {
		os.RemoveAll(golden)
		for name, b := range gotEscaped {
			p := filepath.Join(golden, "mirror", filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(golden, "list.txt"), []byte(gotList), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s: %d files", golden, len(got))
	}

	wantList, err := os.ReadFile(filepath.Join(golden, "list.txt"))
	if err != nil {
		t.Fatalf("%v\nhint: go test ./cmd/spider -run TestMirrorGolden -update writes it", err)
	}
	if gotList != string(wantList) {
		t.Errorf("list (level state file url) differs from %s:\ngot:\n%s\nwant:\n%s", filepath.Join(golden, "list.txt"), gotList, wantList)
	}
	want := readTree(t, filepath.Join(golden, "mirror"))
	for _, name := range union(gotEscaped, want) {
		g, inGot := gotEscaped[name]
		w, inWant := want[name]
		switch {
		case !inWant:
			t.Errorf("mirror has %s (escaped), golden does not", name)
		case !inGot:
			t.Errorf("mirror lacks %s (escaped)", name)
		case !bytes.Equal(g, w):
			t.Errorf("%s differs from the golden copy:\ngot:\n%s\nwant:\n%s", name, g, w)
		}
	}

	// Browsable from disk: the links of every mirrored page lead to files
	// of the mirror, or stay absolute.
	for name, b := range got {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		base := "http://mirror.test/" + escapePath(name)
		links, err := extract.HTML(base, "text/html", b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, l := range links {
			rel, ok := strings.CutPrefix(l.URL, "http://mirror.test/")
			if !ok {
				if strings.Contains(l.URL, u.Host) {
					t.Errorf("%s: link %s leads back to the live site", name, l.URL)
				}
				continue
			}
			rel, _ = url.PathUnescape(strings.SplitN(rel, "#", 2)[0])
			if _, ok := got[path.Clean(rel)]; !ok && path.Base(rel) != "post-3.html" {
				t.Errorf("%s: link to %s, which is not in the mirror", name, rel)
			}
		}
	}
}

// escapePath escapes each segment of the slash-separated name.
func escapePath(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// readTree returns the files under dir by slash-separated relative name.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// union returns the names in a or b, sorted.
func union(a, b map[string][]byte) []string {
	all := maps.Clone(a)
	maps.Copy(all, b)
	return slices.Sorted(maps.Keys(all))
}
