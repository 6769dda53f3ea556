package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Group writes files into new and existing directories, at the root and
// deep down, replaces old content, and leaves no temp file or open
// directory behind.
func TestGroup(t *testing.T) {
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
	for i := range groupSync {
		want[fmt.Sprintf("h/many/%d.html", i)] = fmt.Sprintf("file %d", i)
	}
	g := m.Group()
	for rel, data := range want {
		if _, err := g.Stage(rel, []byte(data)); err != nil {
			t.Fatalf("Stage(%s): %v", rel, err)
		}
	}
	commitAll(t, g)
	wantFiles(t, dir, want)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
	if _, err := g.Stage("h/late.html", []byte("x")); !errors.Is(err, errDone) {
		t.Errorf("Stage after Commit: %v, want an error", err)
	}
	if g.dirs != nil {
		t.Error("directories still open after Commit")
	}
}

// In a group, a file whose name is taken by a directory fails alone: the
// others are written, and its temp file is removed.
func TestGroupFailure(t *testing.T) {
	m, dir := openTemp(t)
	if err := os.MkdirAll(filepath.Join(dir, "h/taken.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := m.Group()
	for _, rel := range []string{"h/a.html", "h/taken.html", "h/b.html"} {
		if _, err := g.Stage(rel, []byte(rel)); err != nil {
			t.Fatal(err)
		}
	}
	errs := g.Commit()
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("errors %v; want one for h/taken.html only", errs)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "h"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a.html b.html taken.html" {
		t.Errorf("h holds %v", names)
	}
}

// A Group refuses what Stage refuses, and cannot leave the root through a
// symlinked directory.
func TestGroupUnsafe(t *testing.T) {
	m, dir := openTemp(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	g := m.Group()
	defer g.Commit()
	for _, rel := range []string{"../x.html", "h/" + tempPrefix + "1-2", "/abs.html", "a\\b.html"} {
		if _, err := g.Stage(rel, []byte("x")); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Stage(%q): %v, want ErrUnsafePath", rel, err)
		}
	}
	if _, err := g.Stage("link/escape.html", []byte("x")); err == nil {
		t.Error("Stage through a symlink leaving the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the root: %v", entries)
	}
}

// commitAll commits g and fails the test on any file's error.
func commitAll(t *testing.T, g *Group) {
	t.Helper()
	for _, err := range g.Commit() {
		if err != nil {
			t.Fatal(err)
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

// A NoReplace group writes new files and leaves every name that exists as
// it was: Stage fails a name that exists already, Commit one that came to
// exist meanwhile, both with fs.ErrExist.
func TestGroupNoReplace(t *testing.T) {
	m, dir := openTemp(t)
	if !m.Unnamed() {
		t.Skip("no unnamed files here: a NoReplace group writes nothing (TestGroupNoReplaceNamed)")
	}
	old := map[string]string{"h/a.html": "old a", "h/deep/b.html": "old b", "top.html": "old top"}
	for rel, data := range old {
		if err := m.Write(rel, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	g := m.Group()
	g.NoReplace()
	want := map[string]string{}
	for rel, data := range old {
		want[rel] = data
		if _, err := g.Stage(rel, []byte("new copy")); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("Stage(%s), which exists: %v, want fs.ErrExist", rel, err)
		}
	}
	for i := range groupSync + 2 {
		rel := fmt.Sprintf("h/new/%d.html", i)
		want[rel] = fmt.Sprintf("new %d", i)
		if _, err := g.Stage(rel, []byte(want[rel])); err != nil {
			t.Fatalf("Stage(%s): %v", rel, err)
		}
	}
	// Staged while free, taken before Commit (another writer): Commit's
	// link fails and leaves the other writer's file.
	if _, err := g.Stage("h/late.html", []byte("ours")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "h", "late.html"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	want["h/late.html"] = "theirs"
	files := g.files
	for i, err := range g.Commit() {
		rel := files[i].Rel()
		if rel == "h/late.html" {
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("%s (taken meanwhile): %v, want fs.ErrExist", rel, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	wantFiles(t, dir, want)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

// Where a file cannot be unnamed, a NoReplace group refuses it
// (errors.ErrUnsupported) rather than rename a temp file over its name,
// and leaves nothing behind.
func TestGroupNoReplaceNamed(t *testing.T) {
	m, dir := openTemp(t)
	m.probe.Do(func() {}) // as where there is no O_TMPFILE and no openat2
	if m.Unnamed() {
		t.Fatal("unnamed files after a probe that found none")
	}
	if err := os.WriteFile(filepath.Join(dir, "top.html"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := m.Group()
	g.NoReplace()
	for _, rel := range []string{"new.html", "h/new.html"} {
		if _, err := g.Stage(rel, []byte("x")); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("Stage(%s) without unnamed files: %v, want errors.ErrUnsupported", rel, err)
		}
	}
	if errs := g.Commit(); len(errs) != 0 {
		t.Fatalf("Commit of nothing: %v", errs)
	}
	wantFiles(t, dir, map[string]string{"top.html": "old"})
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "top.html" {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}
