package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListImportExport(t *testing.T) {
	dir := t.TempDir()
	in := "# a sitemap dump\nhttp://Example.com/a\nhttp://example.com:80/a#frag\n\nhttps://example.com/b\nnot a url\nhttp://example.com/c\nhttp://example.com/d\t# a comment after the URL\n"
	os.WriteFile(filepath.Join(dir, "urls.txt"), []byte(in), 0o644)
	code, _, stderr := runCLI(t, dir, "list", "import", "--level", "2", "urls.txt")
	if code != 1 || !strings.Contains(stderr, "imported 4 of 6 URLs") || !strings.Contains(stderr, "urls.txt:6:") {
		t.Errorf("import: exit %d, stderr:\n%s", code, stderr)
	}
	code, out, stderr := runCLI(t, dir, "list", "export", "--full")
	if code != 0 || !strings.HasPrefix(out, "# spider-list v2") || strings.Count(out, " 2 found ") != 4 {
		t.Errorf("export --full: exit %d:\n%s", code, out)
	}
	// Imported again at level 0, they move up (a URL's level is the
	// lowest it was given).
	code, _, stderr = runCLI(t, dir, "list", "import", "urls.txt")
	if !strings.Contains(stderr, "imported 0 of 6 URLs") || !strings.Contains(stderr, "4 listed URLs moved up to level 0") {
		t.Errorf("re-import: exit %d, stderr:\n%s", code, stderr)
	}
	code, out, stderr = runCLI(t, dir, "list", "export")
	if want := "http://example.com/a\nhttps://example.com/b\nhttp://example.com/c\nhttp://example.com/d\n"; code != 0 || out != want {
		t.Errorf("export: exit %d, %q, want %q; stderr %s", code, out, want, stderr)
	}
	code, out, _ = runCLI(t, dir, "list", "export", "--full")
	if code != 0 || strings.Count(out, " 0 found ") != 4 {
		t.Errorf("export --full: exit %d:\n%s", code, out)
	}
	// The full export is itself a valid list.
	os.WriteFile(filepath.Join(dir, "copy.list"), []byte(out), 0o644)
	if code, out, stderr := runCLI(t, dir, "list", "export", "--list", "copy.list"); code != 0 || strings.Count(out, "\n") != 4 {
		t.Errorf("export of the full export: exit %d %q %s", code, out, stderr)
	}
	// A whole list given to the import of URLs is refused, whole.
	code, _, stderr = runCLI(t, dir, "list", "import", "--list", "other.list", "copy.list")
	if _, err := os.Stat(filepath.Join(dir, "other.list")); code != 2 || !strings.Contains(stderr, "copy.list is a whole list") ||
		!strings.Contains(stderr, "hint: import it with spider list import --full") || err == nil {
		t.Errorf("import of a whole list without --full: exit %d (list file: %v):\n%s", code, err, stderr)
	}
	for _, args := range [][]string{{"list"}, {"list", "import"}, {"list", "frob"}, {"list", "import", "--level", "-1", "x"},
		{"list", "export", "--repair"}, {"list", "import", "--full", "--level", "2", "copy.list"}, {"list", "compact", "--mirror", "m"},
		{"list", "check", "--full"}} {
		if code, _, _ := runCLI(t, dir, args...); code != 2 {
			t.Errorf("spider %v: exit %d, want 2", args, code)
		}
	}
}

func TestSeed(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, dir, "seed", "http://Example.com:80/", "https://example.org/a#x")
	if code != 0 || !strings.Contains(stderr, "seeded 2 new of 2 URLs") {
		t.Fatalf("seed: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, "seed", "http://example.com/")
	if code != 0 || !strings.Contains(stderr, "seeded 0 new of 1 URLs") {
		t.Errorf("seed again: exit %d, %s", code, stderr)
	}
	code, out, _ := runCLI(t, dir, "list", "export", "--full")
	if code != 0 || strings.Count(out, " 0 found ") != 2 || !strings.Contains(out, "https://example.org/a\n") {
		t.Errorf("after seeding:\n%s", out)
	}
	for _, args := range [][]string{{"seed"}, {"seed", "mailto:a@b"}} {
		if code, _, _ := runCLI(t, dir, args...); code != 2 {
			t.Errorf("spider %v: exit %d, want 2", args, code)
		}
	}
}

// spider list check on a list with each kind of damage, and on a sound one.
func TestListCheck(t *testing.T) {
	const header = "# spider-list v1: file spider_id level state last_modification url\n"
	tests := []struct {
		name, list string
		code       int
		want       string
	}{
		{"sound", header + "h/a.html - 0 downloaded 2026-11-21T20:00:00Z http://h/a\n- - 1 found - http://h/b\n", 0, "ok: one line per URL"},
		{"duplicate", header + "h/a.html - 0 downloaded 2026-11-21T20:00:00Z http://h/a\n- - 1 found - http://h/b\n- - 2 found - http://h/a\n", 1, "PROBLEM 1 URLs with more than one line (first: http://h/a)"},
		{"dead claim", header + "h/a.html - 0 downloaded 2026-11-21T20:00:00Z http://h/x\n- gone 0 claimed - http://h/a\n", 1, "PROBLEM 1 claims held by spiders that are not running"},
		{"missing copy", header + "h/missing.html - 0 downloaded 2026-11-21T20:00:00Z http://h/m\n", 1, "PROBLEM 1 copies named by the list but missing from the mirror"},
		{"malformed", header + "- - 0 found - http://h/a\nnot a line\n", 1, "spider.list:3: malformed line"},
		{"stray file", header + "- - 0 found - http://h/b\n", 1, "PROBLEM 1 files in the mirror that no line names (left alone: delete them if unwanted) (first: h/a.html)"},
		{"lead to a copy", header + "h/a.html - 0 downloaded 2026-11-21T20:00:00Z http://h/a.html\nh/r{} - 0 downloaded 2026-11-21T20:00:00Z http://h/r\n", 0, "ok: one line per URL"},
		{"own name below a host", header + "h/a.html - 0 downloaded 2026-11-21T20:00:00Z http://h/a\n", 1, "PROBLEM 1 files in the mirror that no line names (left alone: delete them if unwanted) (first: h/index.html)"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "spider.list"), []byte(tt.list), 0o644)
		os.MkdirAll(filepath.Join(dir, "mirror", "h"), 0o755)
		os.WriteFile(filepath.Join(dir, "mirror", "h", "a.html"), []byte("copy"), 0o644)
		if tt.name == "lead to a copy" {
			// A copy of /r served as a PDF, and the page at the name its
			// links guessed, which leads to it (linkname.Leads).
			os.WriteFile(filepath.Join(dir, "mirror", "h", "r{}"), []byte("%PDF"), 0o644)
			os.WriteFile(filepath.Join(dir, "mirror", "h", "r{}.html"), []byte("lead"), 0o644)
		}
		if tt.name == "own name below a host" {
			os.WriteFile(filepath.Join(dir, "mirror", "h", "index.html"), []byte("stray"), 0o644)
		}
		// The mirror's own files, which no line names: not strays.
		os.MkdirAll(filepath.Join(dir, "mirror", ".spider"), 0o755)
		for _, own := range []string{"index.html", "recent.html", "archive.html", ".spider/events.jsonl", ".spider/state.json", ".spider/lock"} {
			os.WriteFile(filepath.Join(dir, "mirror", filepath.FromSlash(own)), []byte("own"), 0o644)
		}
		code, out, stderr := runCLI(t, dir, "list", "check")
		if code != tt.code || !strings.Contains(out+stderr, tt.want) {
			t.Errorf("%s: exit %d, want %d; output:\n%s%s", tt.name, code, tt.code, out, stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "spider.list")); string(got) != tt.list {
			t.Errorf("%s: check changed the list", tt.name)
		}
	}
}

// list check --repair fixes every kind of damage and the check then passes.
func TestListCheckRepair(t *testing.T) {
	const header = "# spider-list v1: file spider_id level state last_modification url\n"
	damaged := header + "- - 0 found - http://h/a\nnot a line\n- gone 1 claimed - http://h/b\nh/missing.html - 1 downloaded 2026-11-21T20:00:00Z http://h/c\n- - 2 found - http://h/a\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spider.list"), []byte(damaged), 0o644)
	if code, _, _ := runCLI(t, dir, "list", "check"); code != 1 {
		t.Fatalf("check of a damaged list: exit %d, want 1", code)
	}
	// Without the mirror, every copy would look missing: nothing is repaired.
	if code, _, stderr := runCLI(t, dir, "list", "check", "--repair"); code != 2 || !strings.Contains(stderr, "does not exist; nothing was repaired") {
		t.Fatalf("repair without the mirror: exit %d, want 2:\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "spider.list")); string(b) != damaged {
		t.Fatal("the list changed although the repair was refused")
	}
	os.Mkdir(filepath.Join(dir, "mirror"), 0o755) // the mirror, without the missing copy
	code, out, stderr := runCLI(t, dir, "list", "check", "--repair")
	if code != 0 || !strings.Contains(out, "1 malformed lines moved") || !strings.Contains(out, "1 duplicate lines dropped") ||
		!strings.Contains(out, "1 claims returned") || !strings.Contains(out, "1 lines with a missing copy") || !strings.Contains(out, "ok: one line per URL") {
		t.Errorf("repair: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, dir, "list", "check"); code != 0 {
		t.Errorf("check after repair: exit %d\n%s", code, out)
	}
	backups, _ := filepath.Glob(filepath.Join(dir, "spider.list.bak-*"))
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != damaged {
		t.Error("the backup is not the damaged list")
	}
}

// list compact restores the padding of hand-edited lines, keeping every line.
func TestListCompact(t *testing.T) {
	dir := t.TempDir()
	squeezed := "# spider-list v1: file spider_id level state last_modification url\n- - 0 found - http://h/a\nh/b.html - 1 downloaded 2026-11-21T20:00:00Z http://h/b\n"
	os.WriteFile(filepath.Join(dir, "spider.list"), []byte(squeezed), 0o644)
	_, before, _ := runCLI(t, dir, "list", "export", "--full")
	code, out, stderr := runCLI(t, dir, "list", "compact")
	if code != 0 || !strings.Contains(out, "compacted") || !strings.Contains(out, "2 lines") {
		t.Fatalf("compact: exit %d %s %s", code, out, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "spider.list"))
	if strings.Contains(string(data), "- - 0 found - ") {
		t.Errorf("still squeezed:\n%s", data)
	}
	if _, after, _ := runCLI(t, dir, "list", "export", "--full"); after != before {
		t.Errorf("compact changed the entries:\n%s\nwant\n%s", after, before)
	}
}

// spider --help, spider list and spider list --help name every command.
func TestHelpNamesEveryCommand(t *testing.T) {
	lists := []string{"import", "export", "check", "check --repair", "compact", "duplicates"}
	code, out, _ := runCLI(t, t.TempDir(), "--help")
	for _, c := range []string{"status", "show", "seed"} {
		if code != 0 || !strings.Contains(out, "\n  spider "+c+" ") {
			t.Errorf("spider --help: exit %d, does not name spider %s:\n%s", code, c, out)
		}
	}
	_, listHelp, _ := runCLI(t, t.TempDir(), "list", "--help")
	code, _, listBare := runCLI(t, t.TempDir(), "list")
	if code != 2 || !strings.Contains(listBare, "spider: error: spider list needs a command: import, export, check, compact, duplicates") {
		t.Errorf("spider list: exit %d:\n%s", code, listBare)
	}
	for _, c := range lists {
		for what, text := range map[string]string{"spider --help": out, "spider list --help": listHelp, "spider list": listBare} {
			if !strings.Contains(text, "\n  spider list "+c+" ") {
				t.Errorf("%s does not name spider list %s:\n%s", what, c, text)
			}
		}
	}
}
