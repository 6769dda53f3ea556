package meta

import (
	"path/filepath"
	"testing"
	"time"
)

func TestAnnounce(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "l.meta"), time.Second)
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := s.Put([]Record{
		{URL: "http://h/old", Checksum: "s1", Attempts: 3, LastOK: t0.Add(-time.Hour)},
		{URL: "http://h/held", Announced: t0.Add(-time.Minute), LastOK: t0.Add(-time.Hour)},
		{URL: "http://h/visited", LastOK: t0.Add(time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	heard := News{Changed: t0, Heard: t0.Add(time.Second)}
	err := s.Announce(map[string]News{"http://h/old": heard, "http://h/held": heard, "http://h/visited": heard, "http://h/new": heard,
		"http://h/lastyear": {Changed: t0.Add(-365 * 24 * time.Hour), Heard: t0}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get([]string{"http://h/old", "http://h/held", "http://h/visited", "http://h/new", "http://h/lastyear"})
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]time.Time{
		"http://h/old":      t0,                   // announced now
		"http://h/held":     t0.Add(-time.Minute), // the first news counts
		"http://h/visited":  {},                   // reached after the news
		"http://h/new":      t0,                   // a record for a page not fetched yet
		"http://h/lastyear": t0,                   // old news counts from when it was heard
	} {
		if !got[url].Announced.Equal(want) {
			t.Errorf("%s: announced %v, want %v", url, got[url].Announced, want)
		}
	}
	if r := got["http://h/old"]; r.Checksum != "s1" || r.Attempts != 3 {
		t.Errorf("announcing lost the rest of the record: %+v", r)
	}
	if same, _ := s.Same("s1", "", 5); len(same) != 1 {
		t.Errorf("the checksum index lost the record: %v", same)
	}
}

func TestSample(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "l.meta"), time.Second)
	var recs []Record
	for _, u := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		recs = append(recs, Record{URL: "http://h/" + u, Attempts: 1})
	}
	if err := s.Put(recs); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		every int
		want  string
	}{{1, "abcdefg"}, {0, "abcdefg"}, {3, "adg"}, {10, "a"}} {
		var got string
		if err := s.Sample(tt.every, func(r *Record) bool { got += r.URL[len("http://h/"):]; return true }); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("every %d: %q, want %q", tt.every, got, tt.want)
		}
	}
	n := 0
	s.Sample(1, func(*Record) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("stopping: %d records seen", n)
	}
}
