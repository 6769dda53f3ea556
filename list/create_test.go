package list

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// yielding yields es in order.
func yielding(es []Entry) func() (Entry, bool, error) {
	i := 0
	return func() (Entry, bool, error) {
		if i == len(es) {
			return Entry{}, false, nil
		}
		i++
		return es[i-1], true, nil
	}
}

// Create writes the lines in order with every field kept but the claim,
// reserving the file field's width; it never replaces a file, and leaves
// nothing behind when its source fails.
func TestCreate(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	in := []Entry{
		{URL: "http://h/", Level: 0, State: Downloaded, File: "h/index.html", Modified: at, Due: at.Add(time.Hour)},
		{URL: "http://h/claimed-new", Level: 1, State: Claimed, Spider: "fast"},
		{URL: "http://h/claimed-copy", Level: 2, State: Error, Spider: "slow", File: "h/c.html", Modified: at, Due: at},
		{URL: "http://h/gone", Level: 3, State: Archived, File: "h/gone.html", Modified: at.Add(-time.Hour)},
	}
	path := filepath.Join(t.TempDir(), "new.list")
	n, err := Create(path, func(u string) int { return 40 }, yielding(in))
	if err != nil || n != len(in) {
		t.Fatalf("Create: %d, %v", n, err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	if err := l.Scan(context.Background(), func(e *Entry) error { got = append(got, e.Clone()); return nil }); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(in)
	want[1].Spider, want[1].State = "", Found
	want[2].Spider = ""
	if !slices.Equal(got, want) {
		t.Errorf("read back:\n%+v\nwant\n%+v", got, want)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), Header+"\n") || !strings.Contains(string(b), "h/index.html"+strings.Repeat(" ", 40-len("h/index.html"))+" ") {
		t.Errorf("file not padded for the reserve:\n%s", b)
	}
	if _, err := Create(path, nil, yielding(in)); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing list: %v, want ErrExist", err)
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Error("Create changed an existing list")
	}
	bad := errors.New("source failed")
	other := filepath.Join(filepath.Dir(path), "other.list")
	i := 0
	_, err = Create(other, nil, func() (Entry, bool, error) {
		if i++; i > 2 {
			return Entry{}, false, bad
		}
		return in[0], true, nil
	})
	if !errors.Is(err, bad) {
		t.Errorf("Create with a failing source: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("a failed Create left files: %v", ents)
	}
}
