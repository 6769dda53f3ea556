package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWriteAllFailures writes groups below and above the whole-file-system
// sync threshold, fails some files before their rename, and checks that
// exactly the other files appear, with their whole content, none before its
// rename, and that no temp file is left.
func TestWriteAllFailures(t *testing.T) {
	for _, n := range []int{1, groupSync - 1, groupSync, 3 * groupSync} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m, dir := openTemp(t)
			if err := m.Write("h/old.html", []byte("old")); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			var files []File
			wantFail := map[string]bool{}
			for i := range n {
				// Files spread over new directories, some sharing one.
				rel := fmt.Sprintf("h/d%d/sub/p%d.html", i%3, i)
				data := "page " + rel
				if i%4 == 1 {
					data = "fail " + rel
				}
				files = append(files, File{rel, []byte(data)})
				wantFail[rel] = i%4 == 1
			}
			m.beforeRename = func(rel string, f *os.File) error {
				if _, err := m.Stat(rel); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s visible before its rename: %v", rel, err)
				}
				if strings.HasPrefix(contents(t, f), "fail") {
					return boom
				}
				return nil
			}
			errs := m.WriteAll(files)
			for i, f := range files {
				failed := errors.Is(errs[i], boom)
				if failed != wantFail[f.Rel] || !failed && errs[i] != nil {
					t.Errorf("WriteAll %s: %v, want failure %v", f.Rel, errs[i], wantFail[f.Rel])
				}
				if wantFail[f.Rel] {
					if _, err := m.Stat(f.Rel); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s exists after a failed write: %v", f.Rel, err)
					}
				} else {
					mustRead(t, m, f.Rel, "page "+f.Rel)
				}
			}
			mustRead(t, m, "h/old.html", "old")
			noTemps(t, dir)
		})
	}
}

// WriteAll writes files into new and existing directories, at the root and
// deep down, replaces old content, leaves no temp file behind, and keeps the
// later of two files with one name.
func TestWriteAll(t *testing.T) {
	m, dir := openTemp(t)
	if err := m.Write("h/old/a.html", []byte("old")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"top.html":        "at the root",
		"h/old/a.html":    "replaced",
		"h/old/b.html":    "new beside it",
		"h/new/x/y.html":  "in new directories",
		"h/new/x/z.html":  "and another",
		"g:81/index.html": "another host",
	}
	files := []File{{"h/new/x/y.html", []byte("an earlier copy")}}
	for rel, data := range want {
		files = append(files, File{rel, []byte(data)})
	}
	for i := range groupSync {
		rel := fmt.Sprintf("h/many/%d.html", i)
		want[rel] = fmt.Sprintf("file %d", i)
		files = append(files, File{rel, []byte(want[rel])})
	}
	writeAll(t, m, files)
	wantFiles(t, dir, want)
	noTemps(t, dir)
	if errs := m.WriteAll(nil); len(errs) != 0 {
		t.Errorf("WriteAll(nil) = %v", errs)
	}
}

// In a group, a file whose name is taken by a directory fails alone: the
// others are written, and its temp file is removed.
func TestWriteAllOneFails(t *testing.T) {
	m, dir := openTemp(t)
	if err := os.MkdirAll(filepath.Join(dir, "h/taken.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	var files []File
	for _, rel := range []string{"h/a.html", "h/taken.html", "h/b.html"} {
		files = append(files, File{rel, []byte(rel)})
	}
	errs := m.WriteAll(files)
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("errors %v; want one for h/taken.html only", errs)
	}
	if names := list(t, filepath.Join(dir, "h")); names != "a.html b.html taken.html" {
		t.Errorf("h holds %q", names)
	}
}

// WriteAll refuses what Write refuses, and cannot leave the root through a
// symlinked directory.
func TestWriteAllUnsafe(t *testing.T) {
	m, dir := openTemp(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	var files []File
	for _, rel := range []string{"../x.html", "h/" + tempPrefix + "1-2", "/abs.html", "a\\b.html", "link/escape.html"} {
		files = append(files, File{rel, []byte("x")})
	}
	errs := m.WriteAll(files)
	for i, err := range errs[:4] {
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("WriteAll(%q): %v, want ErrUnsafePath", files[i].Rel, err)
		}
	}
	if errs[4] == nil {
		t.Error("a write through a symlink leaving the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the root: %v", entries)
	}
}

// A directory behind a symlink that stays inside the root is written
// through the link, even one that leaves its own parent.
func TestWriteAllSymlinkInside(t *testing.T) {
	m, dir := openTemp(t)
	aliasReal(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "h"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real", filepath.Join(dir, "h", "up")); err != nil {
		t.Fatal(err)
	}
	writeAll(t, m, []File{{"alias/a.html", []byte("through the link")}, {"h/up/b.html", []byte("up and over")}})
	wantFiles(t, dir, map[string]string{"real/a.html": "through the link", "real/b.html": "up and over"})
}

// WriteAll creates the directories its files need, nested, beside files and
// under a symlinked parent; a file where a directory should be fails that
// file alone.
func TestWriteAllNewDirs(t *testing.T) {
	m, dir := openTemp(t)
	aliasReal(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "real/file"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"h/t/1.html":          "in h/t",
		"h/t/1/replies.html":  "a directory made in h/t",
		"h/t/2/a/b/deep.html": "three made in h/t",
		"alias/new/x.html":    "made in real, through the link",
	}
	files := []File{{"real/file/inside.html", []byte("x")}}
	for _, rel := range []string{"h/t/1.html", "h/t/1/replies.html", "h/t/2/a/b/deep.html", "alias/new/x.html"} {
		files = append(files, File{rel, []byte(want[rel])})
	}
	errs := m.WriteAll(files)
	if errs[0] == nil {
		t.Error("a write into a directory that is a file: no error")
	}
	for i, err := range errs[1:] {
		if err != nil {
			t.Errorf("%s: %v", files[i+1].Rel, err)
		}
	}
	want["real/new/x.html"] = want["alias/new/x.html"]
	delete(want, "alias/new/x.html")
	wantFiles(t, dir, want)
	for _, d := range []string{"h/t/1", "h/t/2/a/b"} {
		if fi, err := os.Lstat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v, want a directory", d, err)
		}
	}
}

func TestPrefixes(t *testing.T) {
	for dir, want := range map[string]string{".": "", "a": "a", "a/b/c": "a a/b a/b/c"} {
		if got := strings.Join(prefixes(dir), " "); got != want {
			t.Errorf("prefixes(%q) = %q, want %q", dir, got, want)
		}
	}
}

// writeAll writes files and fails the test on any file's error.
func writeAll(t testing.TB, m *Mirror, files []File) {
	t.Helper()
	for i, err := range m.WriteAll(files) {
		if err != nil {
			t.Fatalf("%s: %v", files[i].Rel, err)
		}
	}
}

// wantFiles checks that each file of want (name relative to dir → content)
// holds its content.
func wantFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for rel, data := range want {
		if got, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(got) != data {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, data)
		}
	}
}

// aliasReal makes the directory real in dir and the symlink alias to it.
func aliasReal(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Skip(err)
	}
}

// list returns the names in dir, sorted, space-separated.
func list(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return strings.Join(names, " ")
}

// The files of a group are created and written on several goroutines at
// once: in a crawl, whose workers keep the process's threads busy, one
// goroutine creating a group of a thousand files, a system call after the
// other, waited for a processor after each, and the writes fell seconds
// behind the fetches. Each file's write here waits for the other's.
func TestWriteAllCreatesAtOnce(t *testing.T) {
	m, _ := openTemp(t)
	files := []File{{Rel: "h/a.html", Data: []byte("a")}, {Rel: "h/b.html", Data: []byte("b")}}
	var both sync.WaitGroup
	both.Add(len(files))
	waited := make(chan bool, len(files))
	m.written = func(string) {
		both.Done()
		done := make(chan struct{})
		go func() { // ends when both files are written, or with the test
			both.Wait()
			close(done)
		}()
		select {
		case <-done:
			waited <- true
		case <-time.After(10 * time.Second):
			waited <- false
		}
	}
	for i, err := range m.WriteAll(files) {
		if err != nil {
			t.Fatal(files[i].Rel, err)
		}
	}
	for range files {
		if !<-waited {
			t.Fatal("a file's write waited in vain for the other's: the group's files are written one after the other")
		}
	}
}
