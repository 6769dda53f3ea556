package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// A whole list moves from a file to PostgreSQL and back losslessly: the
// levels, states, files and times of every line, in order, byte for byte
// but the claims, which a move drops. status, show and list check read
// the PostgreSQL list; compaction says it is for files only.
func TestListMovesBetweenFileAndPostgres(t *testing.T) {
	dir := t.TempDir()
	conf, schema := pgConfig(t, dir, "state = \"local/state\"\n")
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var buf []byte
	buf = append(buf, list.Header+"\n"...)
	kinds := []list.Entry{
		{Level: 0, State: list.Downloaded, File: "h/index.html", Modified: at, Due: at.Add(90 * time.Minute)},
		{Level: 1, State: list.Found, Due: at.Add(-time.Hour)},
		{Level: 2, State: list.Claimed, Spider: "fast"},
		{Level: 2, State: list.Error, Spider: "slow", File: "h/e.html", Modified: at.Add(-48 * time.Hour), Due: at.Add(-48 * time.Hour)},
		{Level: 3, State: list.Archived, File: "h/gone.html", Modified: at.Add(-time.Hour)},
		{Level: 7, State: list.Disallowed, Modified: at},
		{Level: 12, State: list.Found},
	}
	for i := range 50 {
		e := kinds[i%len(kinds)]
		e.URL = fmt.Sprintf("http://h/%d/page-%03d", i%len(kinds), i)
		if e.File != "" {
			e.File = fmt.Sprintf("h/%d-%s", i, e.File[2:])
		}
		buf = list.AppendLine(buf, &e, 40) // padded, as spiders write it
	}
	if err := os.WriteFile(filepath.Join(dir, "a.list"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	code, fromFile, stderr := runCLI(t, dir, "list", "export", "--full", "--list", "a.list")
	if code != 0 || strings.Count(fromFile, "\n") != 51 {
		t.Fatalf("export of the file: exit %d, %s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, "a.full"), []byte(fromFile), 0o644)

	code, _, stderr = runCLI(t, dir, "list", "import", "--full", "--config", conf, "a.full")
	if code != 0 || !strings.Contains(stderr, "imported 50 lines into PostgreSQL schema "+schema) {
		t.Fatalf("import into PostgreSQL: exit %d, %s", code, stderr)
	}
	code, fromPG, stderr := runCLI(t, dir, "list", "export", "--full", "--config", conf)
	if want := unclaimed(t, fromFile); code != 0 || fromPG != want {
		t.Fatalf("export of PostgreSQL: exit %d, %s\ngot:\n%s\nwant:\n%s", code, stderr, fromPG, want)
	}
	os.WriteFile(filepath.Join(dir, "pg.full"), []byte(fromPG), 0o644)
	code, _, stderr = runCLI(t, dir, "list", "import", "--full", "--list", "b.list", "pg.full")
	if code != 0 || !strings.Contains(stderr, "imported 50 lines into") {
		t.Fatalf("import into a file: exit %d, %s", code, stderr)
	}
	if code, back, stderr := runCLI(t, dir, "list", "export", "--full", "--list", "b.list"); code != 0 || back != fromPG {
		t.Errorf("the file back from PostgreSQL differs: exit %d, %s\n%s", code, stderr, back)
	}
	// The list file written is one spiders work on: padded for its copies.
	if b, _ := os.ReadFile(filepath.Join(dir, "b.list")); len(b) <= len(fromPG) {
		t.Errorf("b.list has no room reserved for file names:\n%s", b)
	}

	// A whole list goes into an empty list only.
	if code, _, stderr := runCLI(t, dir, "list", "import", "--full", "--config", conf, "a.full"); code != 1 || !strings.Contains(stderr, "holds lines already") {
		t.Errorf("second import into PostgreSQL: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, "list", "import", "--full", "--list", "b.list", "a.full"); code != 1 || !strings.Contains(stderr, "the file exists") {
		t.Errorf("import over a list file: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, "list", "import", "--full", "--list", "c.list", "a.list.nope"); code != 1 || !strings.Contains(stderr, "hint:") {
		t.Errorf("import of a missing file: exit %d, %s", code, stderr)
	}

	// The other commands read the PostgreSQL list.
	code, out, stderr := runCLI(t, dir, "status", "--config", conf, "--json")
	var st Status
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.Lines != 50 || st.List != "PostgreSQL schema "+schema {
		t.Errorf("status: exit %d, %v, %s%s", code, err, out, stderr)
	}
	// The sizes are those of the database's tables, indexes included.
	if f := st.Files; f.Database != schema || f.State != filepath.Join(dir, "local", "state") || f.List <= 0 || f.Meta <= 0 || f.HostsD <= 0 || f.Journal != 0 {
		t.Errorf("status files of a list in PostgreSQL: %+v", f)
	}
	code, out, stderr = runCLI(t, dir, "status", "--config", conf)
	if code != 0 || !strings.Contains(out, "schema "+schema+": lines ") || !strings.Contains(out, filepath.Join(dir, "local", "state")+" (this machine's)") {
		t.Errorf("status: exit %d, %s%s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, dir, "show", "--config", conf, "http://h/0/page-000"); code != 0 || !strings.Contains(out, "downloaded, level 0, unclaimed") {
		t.Errorf("show: exit %d, %s%s", code, out, stderr)
	}
	if err := os.MkdirAll(filepath.Join(dir, "mirror"), 0o755); err != nil { // an empty mirror: every copy missing
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, dir, "list", "check", "--config", conf, "--mirror", filepath.Join(dir, "mirror"))
	if code != 1 || !strings.Contains(out, "list PostgreSQL schema "+schema+": 50 lines, format ok") || !strings.Contains(out, "missing from the mirror") {
		t.Errorf("list check: exit %d, %s%s", code, out, stderr)
	}
	// This machine's files of the list go to the state directory set.
	if _, err := os.Stat(filepath.Join(dir, "local", "state")); err != nil {
		t.Errorf("state directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "spider-state")); err == nil {
		t.Error("spider-state created although state is set")
	}
	for _, args := range [][]string{{"list", "compact"}, {"list", "check", "--repair"}} {
		code, _, stderr := runCLI(t, dir, append(args, "--config", conf)...)
		if code != 2 || !strings.Contains(stderr, "works on a list file only") || !strings.Contains(stderr, "hint:") {
			t.Errorf("%v on PostgreSQL: exit %d, %s", args, code, stderr)
		}
	}
}
