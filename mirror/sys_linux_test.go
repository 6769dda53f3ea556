//go:build linux

package mirror

import (
	"os"
	"path/filepath"
	"testing"
)

// On Linux a Group opens its directories beneath the root in one call and
// writes unnamed files: nothing of a staged file is visible in its
// directory before Commit, not even a temp name; Commit names new files
// and replaces existing ones; the probe leaves nothing behind.
func TestGroupUnnamed(t *testing.T) {
	m, dir := openTemp(t)
	if err := m.Write("h/old.html", []byte("old")); err != nil {
		t.Fatal(err)
	}
	if m.rootDir() == nil || !m.unnamed() {
		t.Fatal("no unnamed files on this Linux file system (openat2 and O_TMPFILE, Linux 5.6+)")
	}
	g := m.Group()
	want := map[string]string{"h/old.html": "replaced", "h/new.html": "new", "h/d/e/deep.html": "deep"}
	for rel, data := range want {
		s, err := g.Stage(rel, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if !s.anon || s.tmp != "" {
			t.Errorf("%s staged with a name (%q), want an unnamed file", rel, s.tmp)
		}
	}
	if names := list(t, filepath.Join(dir, "h")); names != "d old.html" {
		t.Errorf("before Commit, h holds %q; want only what was there and the new directory", names)
	}
	commitAll(t, g)
	wantFiles(t, dir, want)
	if names := list(t, filepath.Join(dir, "h")); names != "d new.html old.html" {
		t.Errorf("after Commit, h holds %q", names)
	}
	if names := list(t, dir); names != "h" {
		t.Errorf("the root holds %q; want h alone", names)
	}
}

// A Group's directory behind a symlink is opened through os.Root, which
// follows a link that stays inside the root, where openat2 refuses every
// link.
func TestGroupSymlinkInside(t *testing.T) {
	m, dir := openTemp(t)
	aliasReal(t, dir)
	g := m.Group()
	if _, err := g.Stage("alias/a.html", []byte("through the link")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, g)
	wantFiles(t, dir, map[string]string{"real/a.html": "through the link"})
}

// aliasReal makes the directory real in dir and the symlink alias to it.
func aliasReal(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
}

// A directory a Group creates inside one it has open is made there by
// mkdirBeneath; under a symlinked parent it goes through os.Root, which
// follows the link inside the root; a file where a directory should be
// fails that file alone.
func TestGroupNewDirs(t *testing.T) {
	m, dir := openTemp(t)
	aliasReal(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "real/file"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := m.Group()
	want := map[string]string{
		"h/t/1.html":          "in h/t",
		"h/t/1/replies.html":  "a directory made in h/t",
		"h/t/2/a/b/deep.html": "three made in h/t",
		"alias/new/x.html":    "made in real, through the link",
	}
	for _, rel := range []string{"h/t/1.html", "h/t/1/replies.html", "h/t/2/a/b/deep.html", "alias/new/x.html"} {
		if _, err := g.Stage(rel, []byte(want[rel])); err != nil {
			t.Fatalf("Stage(%s): %v", rel, err)
		}
	}
	if _, err := g.Stage("real/file/inside.html", []byte("x")); err == nil {
		t.Error("Stage into a directory that is a file: no error")
	}
	commitAll(t, g)
	want["real/new/x.html"] = want["alias/new/x.html"]
	delete(want, "alias/new/x.html")
	wantFiles(t, dir, want)
	for _, d := range []string{"h/t/1", "h/t/2/a/b"} {
		if fi, err := os.Lstat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v, want a directory", d, err)
		}
	}
}

// list returns the names in dir, sorted, space-separated.
func list(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	for i, e := range entries {
		if i > 0 {
			s += " "
		}
		s += e.Name()
	}
	return s
}
