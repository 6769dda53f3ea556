package list

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRepair(t *testing.T) {
	damaged := Header + "\n" +
		"# a comment the operator wrote\n" +
		"h/a.html - 0 downloaded 2026-11-20T10:00:00Z http://h/a\n" +
		"this line is garbage\n" +
		"- dead 1 claimed - http://h/b\n" +
		"h/gone.html - 1 downloaded 2026-11-20T10:00:00Z http://h/c\n" +
		"h/x.html - 2 archived 2026-11-20T10:00:00Z http://h/d\n" +
		"- - 3 found - http://h/a\n" + // a second line for http://h/a
		"- - 1 found - http://h/e\n"
	l := listAt(t, damaged)
	rep, err := l.Repair(context.Background(),
		func(spider string) bool { return false },
		func(file string) bool { return file == "h/gone.html" || file == "h/x.html" })
	if err != nil {
		t.Fatal(err)
	}
	want := RepairReport{Backup: rep.Backup, Rejected: 1, Duplicates: 1, Released: 1, Reset: 2}
	if rep != want {
		t.Errorf("report %+v, want %+v", rep, want)
	}
	if b, _ := os.ReadFile(rep.Backup); string(b) != damaged {
		t.Errorf("backup differs from the list before the repair")
	}
	if b, _ := os.ReadFile(l.Path() + ".rejected"); string(b) != "this line is garbage\n" {
		t.Errorf("rejected lines: %q", b)
	}
	got := entries(t, l)
	wantEntries := []Entry{
		{File: "h/a.html", Level: 0, State: Downloaded, Modified: mustTime("2026-11-20T10:00:00Z"), URL: "http://h/a"},
		{Level: 1, State: Found, URL: "http://h/b"},
		{Level: 1, State: Found, URL: "http://h/c"},
		{Level: 2, State: Archived, Modified: mustTime("2026-11-20T10:00:00Z"), URL: "http://h/d"},
		{Level: 1, State: Found, URL: "http://h/e"},
	}
	if len(got) != len(wantEntries) {
		t.Fatalf("entries %+v", got)
	}
	for i := range got {
		if got[i] != wantEntries[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], wantEntries[i])
		}
	}
	data, _ := os.ReadFile(l.Path())
	if !strings.Contains(string(data), "# a comment the operator wrote\n") {
		t.Error("the comment was lost")
	}
	// The repaired list is padded: a pass updates it in place.
	c := run(t, l, &Cycle{Spider: "a", Pick: allPicker{9}})
	if c.Stats.Rewrote || c.Stats.Claimed != 3 {
		t.Errorf("pass after repair: %+v", c.Stats)
	}
	// A list of another format version is not touched.
	v2 := listAt(t, "# spider-list v3: something new\nwhatever\n")
	if _, err := v2.Repair(context.Background(), func(string) bool { return false }, func(string) bool { return false }); err == nil {
		t.Error("repaired a list of another version")
	}
	if b, _ := os.ReadFile(v2.Path()); string(b) != "# spider-list v3: something new\nwhatever\n" {
		t.Error("a list of another version was changed")
	}
}

func mustTime(s string) (t0 time.Time) {
	t0, _ = time.Parse(timeLayout, s)
	return t0
}
