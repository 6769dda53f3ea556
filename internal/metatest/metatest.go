// Package metatest is the conformance suite of the stores of the fetch
// history (internal/meta's file, internal/pglist's table): one set of
// cases, run against each store by its own package's tests, as restic
// runs one suite against every backend.
package metatest

import (
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
)

// Store is what the spiders and the commands use of a history store.
type Store interface {
	Get(urls []string) (map[string]meta.Record, error)
	Put(recs []meta.Record) error
	Announce(news map[string]meta.News, window time.Duration) error
	Same(sum, url string, limit int) ([]string, error)
	Sample(every int, fn func(r *meta.Record) bool) error
	Duplicates(fn func(sum string, urls []string) bool) error
}

// Run runs every case; open returns a new, empty store each time it is
// called (its cleanup is the caller's: t.Cleanup).
func Run(t *testing.T, open func(t *testing.T) Store) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s Store)
	}{
		{"PutGet", testPutGet},
		{"LastOfURLWins", testLastOfURLWins},
		{"Duplicates", testDuplicates},
		{"Announce", testAnnounce},
		{"Sample", testSample},
		{"ConcurrentWriters", testConcurrentWriters},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
	}
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func put(t *testing.T, s Store, recs ...meta.Record) {
	t.Helper()
	if err := s.Put(recs); err != nil {
		t.Fatal(err)
	}
}

func testPutGet(t *testing.T, s Store) {
	got, err := s.Get([]string{"http://a/"})
	if err != nil || len(got) != 0 {
		t.Fatalf("Get before any Put: %v, %v", got, err)
	}
	a := meta.Record{URL: "http://a/", ETag: `"x"`, Checksum: "s1", Status: 200, Attempts: 1, LastOK: t0,
		Held:   []meta.Link{{URL: "http://a/q", Kind: 1}, {URL: "https://cdn/i.png", Kind: 3, Nofollow: true}},
		Visits: []meta.Visit{{After: 3600}, {After: 60, Changed: true}}, Checks: 2, Changes: 1, Lag: time.Minute,
		Listing: 3, ListingLevel: 1}
	b := meta.Record{URL: "http://b/", Status: 503, Error: "boom", Fails: 2, RetryAt: t0.Add(time.Minute)}
	put(t, s, a, b)
	got, err = s.Get([]string{"http://a/", "http://b/", "http://c/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got["http://a/"], a) || !reflect.DeepEqual(got["http://b/"], b) {
		t.Errorf("Get = %+v", got)
	}
	if err := s.Put([]meta.Record{{}}); err == nil {
		t.Error("a record without a URL was stored")
	}
	if err := s.Put(nil); err != nil {
		t.Errorf("an empty Put: %v", err)
	}
	if got, err := s.Get(nil); err != nil || len(got) != 0 {
		t.Errorf("an empty Get: %v, %v", got, err)
	}
}

// The historian hands over every record queued since its last batch: two
// visits of one URL may share a batch, and the later one is the truth.
func testLastOfURLWins(t *testing.T, s Store) {
	put(t, s, meta.Record{URL: "http://a/", Checksum: "s1", Attempts: 1},
		meta.Record{URL: "http://b/", Attempts: 1},
		meta.Record{URL: "http://a/", Checksum: "s2", Attempts: 2})
	got, err := s.Get([]string{"http://a/"})
	if err != nil || got["http://a/"].Attempts != 2 || got["http://a/"].Checksum != "s2" {
		t.Errorf("Get = %+v, %v; want the second record of the batch", got, err)
	}
	if same, _ := s.Same("s1", "", 5); len(same) != 0 {
		t.Errorf("the first record's checksum is still indexed: %v", same)
	}
}

func testDuplicates(t *testing.T, s Store) {
	put(t, s, meta.Record{URL: "http://a/", Checksum: "s1"}, meta.Record{URL: "http://b/", Checksum: "s1"},
		meta.Record{URL: "http://c/", Checksum: "s2"}, meta.Record{URL: "http://d/", Checksum: "s1"})
	same, err := s.Same("s1", "http://a/", 10)
	if err != nil || !reflect.DeepEqual(same, []string{"http://b/", "http://d/"}) {
		t.Errorf("Same = %v, %v", same, err)
	}
	if same, _ := s.Same("s1", "http://a/", 1); len(same) != 1 {
		t.Errorf("limit ignored: %v", same)
	}
	if same, _ := s.Same("", "http://a/", 10); len(same) != 0 {
		t.Errorf("no checksum has duplicates: %v", same)
	}
	// b changes: it leaves the group.
	put(t, s, meta.Record{URL: "http://b/", Checksum: "s3"})
	var groups [][]string
	err = s.Duplicates(func(sum string, urls []string) bool {
		groups = append(groups, append([]string{sum}, urls...))
		return true
	})
	if err != nil || !reflect.DeepEqual(groups, [][]string{{"s1", "http://a/", "http://d/"}}) {
		t.Errorf("Duplicates = %v, %v", groups, err)
	}
	put(t, s, meta.Record{URL: "http://e/", Checksum: "s2"})
	n := 0
	s.Duplicates(func(string, []string) bool { n++; return false })
	if n != 1 {
		t.Errorf("fn returned false, and was called %d times", n)
	}
}

func testAnnounce(t *testing.T, s Store) {
	put(t, s, meta.Record{URL: "http://h/old", Checksum: "s1", Attempts: 3, LastOK: t0.Add(-time.Hour)},
		meta.Record{URL: "http://h/held", Announced: t0.Add(-time.Minute), LastOK: t0.Add(-time.Hour)},
		meta.Record{URL: "http://h/visited", LastOK: t0.Add(time.Minute)})
	heard := meta.News{Changed: t0, Heard: t0.Add(time.Second)}
	err := s.Announce(map[string]meta.News{"http://h/old": heard, "http://h/held": heard, "http://h/visited": heard,
		"http://h/new": heard, "http://h/lastyear": {Changed: t0.Add(-365 * 24 * time.Hour), Heard: t0}}, time.Hour)
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
		"http://h/visited":  {},                   // reached after the news: its lag is measured
		"http://h/new":      t0,                   // a record for a page not fetched yet
		"http://h/lastyear": t0,                   // old news counts from when it was heard
	} {
		if !got[url].Announced.Equal(want) {
			t.Errorf("%s: announced %v, want %v", url, got[url].Announced, want)
		}
	}
	if lag := got["http://h/visited"].Lag; lag != time.Minute {
		t.Errorf("visited a minute after the news: lag %v, want 1m0s", lag)
	}
	if r := got["http://h/old"]; r.Checksum != "s1" || r.Attempts != 3 {
		t.Errorf("announcing lost the rest of the record: %+v", r)
	}
	if same, _ := s.Same("s1", "", 5); len(same) != 1 {
		t.Errorf("the checksum index lost the record: %v", same)
	}
	if err := s.Announce(nil, time.Hour); err != nil {
		t.Errorf("no news: %v", err)
	}
}

func testSample(t *testing.T, s Store) {
	var recs []meta.Record
	// Put out of order: Sample goes by the URLs' bytes.
	for _, u := range []string{"g", "b", "c", "d", "e", "f", "a", "B"} {
		recs = append(recs, meta.Record{URL: "http://h/" + u, Attempts: 1})
	}
	put(t, s, recs...)
	for _, tt := range []struct {
		every int
		want  string
	}{{1, "Babcdefg"}, {0, "Babcdefg"}, {3, "Bcf"}, {10, "B"}} {
		var got string
		if err := s.Sample(tt.every, func(r *meta.Record) bool { got += r.URL[len("http://h/"):]; return true }); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("every %d: %q, want %q", tt.every, got, tt.want)
		}
	}
	n := 0
	s.Sample(1, func(*meta.Record) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("stopping: %d records seen", n)
	}
}

// Spiders store their batches at once, over the same URLs in different
// orders, and announce news of them: every write lands, none fails.
func testConcurrentWriters(t *testing.T, s Store) {
	const writers, urls = 4, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			var recs []meta.Record
			news := map[string]meta.News{}
			for i := range urls {
				if w%2 == 1 {
					i = urls - 1 - i // the other order
				}
				u := "http://h/" + strconv.Itoa(i)
				recs = append(recs, meta.Record{URL: u, Attempts: w + 1, Checksum: "s1"})
				news[u] = meta.News{Changed: t0, Heard: t0}
			}
			for range 5 {
				if err := s.Put(recs); err != nil {
					t.Error(err)
					return
				}
				if err := s.Announce(news, time.Hour); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	n := 0
	if err := s.Sample(1, func(r *meta.Record) bool { n++; return r.Announced.Equal(t0) }); err != nil || n != urls {
		t.Errorf("after concurrent writers: %d records announced, %v; want %d", n, err, urls)
	}
}
