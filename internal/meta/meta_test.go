package meta

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestPutGet(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "l.meta"), time.Second)
	got, err := s.Get([]string{"http://a/"})
	if err != nil || len(got) != 0 {
		t.Fatalf("Get before any Put: %v, %v", got, err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	a := Record{URL: "http://a/", ETag: `"x"`, Checksum: "s1", Status: 200, Attempts: 1, LastOK: now}
	b := Record{URL: "http://b/", Status: 503, Error: "boom", Fails: 2, RetryAt: now.Add(time.Minute)}
	if err := s.Put([]Record{a, b}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Get([]string{"http://a/", "http://b/", "http://c/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got["http://a/"], a) || !reflect.DeepEqual(got["http://b/"], b) {
		t.Errorf("Get = %+v", got)
	}
	if err := s.Put([]Record{{}}); err == nil {
		t.Error("a record without a URL was stored")
	}
}

func TestDuplicates(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "l.meta"), time.Second)
	put := func(recs ...Record) {
		t.Helper()
		if err := s.Put(recs); err != nil {
			t.Fatal(err)
		}
	}
	put(Record{URL: "http://a/", Checksum: "s1"}, Record{URL: "http://b/", Checksum: "s1"},
		Record{URL: "http://c/", Checksum: "s2"}, Record{URL: "http://d/", Checksum: "s1"})
	same, err := s.Same("s1", "http://a/", 10)
	if err != nil || !reflect.DeepEqual(same, []string{"http://b/", "http://d/"}) {
		t.Errorf("Same = %v, %v", same, err)
	}
	if same, _ := s.Same("s1", "http://a/", 1); len(same) != 1 {
		t.Errorf("limit ignored: %v", same)
	}
	// b changes: it leaves the group.
	put(Record{URL: "http://b/", Checksum: "s3"})
	var groups [][]string
	err = s.Duplicates(func(sum string, urls []string) bool {
		groups = append(groups, append([]string{sum}, urls...))
		return true
	})
	if err != nil || !reflect.DeepEqual(groups, [][]string{{"s1", "http://a/", "http://d/"}}) {
		t.Errorf("Duplicates = %v, %v", groups, err)
	}
}

// A writer holding the file makes others wait, and give up with ErrLocked
// after the timeout instead of hanging.
func TestLockedTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.meta")
	s := Open(path, 50*time.Millisecond)
	if err := s.Put([]Record{{URL: "http://a/"}}); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o644, nil) // another holder, by its own open file
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]Record{{URL: "http://b/"}}); !errors.Is(err, ErrLocked) {
		t.Errorf("Put while locked: %v, want ErrLocked", err)
	}
	if _, err := s.Get([]string{"http://a/"}); !errors.Is(err, ErrLocked) {
		t.Errorf("Get while locked: %v, want ErrLocked", err)
	}
	db.Close()
	if got, err := s.Get([]string{"http://a/"}); err != nil || len(got) != 1 {
		t.Errorf("Get after unlock: %v, %v", got, err)
	}
}
