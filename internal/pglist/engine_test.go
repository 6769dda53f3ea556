package pglist

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/hostgate"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

var (
	_ crawl.History = (*History)(nil)
	_ crawl.Gate    = (*Gate)(nil)
)

// The engine runs on the PostgreSQL history and gate: a spider that comes
// after another, with a Store of its own (another machine's), revisits
// the pages with the validators the first stored (conditional GETs, all
// answered 304), and the host's pace is in the hosts table, not in files
// beside the list.
func TestEngineOnPostgresState(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	var mu sync.Mutex
	conditional, plain := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		etag := `"` + r.URL.Path + `"`
		w.Header().Set("ETag", etag)
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("If-None-Match") == etag {
			conditional++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		plain++
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			w.Write([]byte(`<a href="/a">a</a> <a href="/b">b</a>`))
			return
		}
		w.Write([]byte("page " + r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	l, err := list.Open(filepath.Join(dir, "spider.list"), list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Open(filepath.Join(dir, "mirror"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	clock := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	run := func() {
		t.Helper()
		s := openTest(t, dsn, schema) // a machine of its own
		now := clock
		cfg := crawl.Config{
			Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
			Starts: []string{srv.URL + "/"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true, IgnoreRobots: true,
			Now: func() time.Time { return now }, Delay: 5 * time.Millisecond,
			History: s.History(), Gate: openGate(t, s, hostgate.Options{}),
		}
		e := crawl.New(cfg, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
		if _, err := e.Run(context.Background()); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	run()
	mu.Lock()
	if plain != 3 || conditional != 0 {
		t.Fatalf("first run: %d plain and %d conditional requests, want 3 and 0", plain, conditional)
	}
	mu.Unlock()
	clock = clock.Add(2 * time.Hour)
	run()
	mu.Lock()
	defer mu.Unlock()
	if plain != 3 || conditional != 3 {
		t.Errorf("second run: %d plain and %d conditional requests in all, want 3 and 3", plain, conditional)
	}
	var hosts int
	s := openTest(t, dsn, schema)
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM hosts`).Scan(&hosts); err != nil || hosts != 1 {
		t.Errorf("hosts table: %d rows, %v; want the site's", hosts, err)
	}
	for _, beside := range []string{".meta", ".hosts.d"} {
		if _, err := os.Stat(l.Path() + beside); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s beside the list: %v, want none", beside, err)
		}
	}
}
