package pglist

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/gatetest"
	"github.com/spider-mirror/spider/internal/hostgate"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/metatest"
	"github.com/spider-mirror/spider/list"
)

// The history table passes the history stores' conformance suite.
func TestHistoryConformance(t *testing.T) {
	dsn := testDSN(t)
	metatest.Run(t, func(t *testing.T) metatest.Store {
		return openTest(t, dsn, testSchema(t, dsn)).History()
	})
}

// The hosts table passes the host pace's conformance suite; each Gate
// opened on one schema is another process's view, with a Store (a pool)
// of its own.
func TestGateConformance(t *testing.T) {
	dsn := testDSN(t)
	gatetest.Run(t, func(t *testing.T) func(t *testing.T, o hostgate.Options) gatetest.Gate {
		schema := testSchema(t, dsn)
		return func(t *testing.T, o hostgate.Options) gatetest.Gate {
			return openGate(t, openTest(t, dsn, schema), o)
		}
	})
}

// openGate opens a Gate on s, closed when the test ends.
func openGate(t testing.TB, s *Store, o hostgate.Options) *Gate {
	t.Helper()
	g, err := s.OpenGate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Errorf("close gate: %v", err)
		}
	})
	return g
}

// A lease's holder is its Gate's session: once the session ends (the
// process died, its host vanished, or it closed the Gate mid-request) the
// lease stops counting at the next transaction on the host, long before
// it expires; while the session lives it counts.
func TestGateLeaseDiesWithSession(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	o := hostgate.Options{Conns: 1, LeaseTTL: time.Hour}
	a, b := openGate(t, openTest(t, dsn, schema), o), openGate(t, openTest(t, dsn, schema), o)
	if _, w, err := a.TryAcquire("h", 0); w != 0 || err != nil {
		t.Fatalf("first lease: wait %v, %v", w, err)
	}
	if _, w, err := b.TryAcquire("h", 0); w == 0 || err != nil {
		t.Fatalf("a live session's lease was dropped (wait %v, %v)", w, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, w, err := b.TryAcquire("h", 0); w != 0 || err != nil {
		t.Errorf("a closed session's lease blocks the host (wait %v, %v)", w, err)
	}
}

// A closed Gate's leases stop counting at once, not when the server gets
// round to ending its backend: a spider restarted right after its
// predecessor exited finds the hosts free.
func TestGateCloseReleasesAtOnce(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	s := openTest(t, dsn, schema)
	o := hostgate.Options{Conns: 1, LeaseTTL: time.Hour}
	b := openGate(t, openTest(t, dsn, schema), o)
	for round := range 50 {
		a, err := s.OpenGate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		host := fmt.Sprintf("h%d", round)
		if _, w, err := a.TryAcquire(host, 0); w != 0 || err != nil {
			t.Fatalf("round %d: first lease: wait %v, %v", round, w, err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if _, w, err := b.TryAcquire(host, 0); w != 0 || err != nil {
			t.Fatalf("round %d: a closed gate's lease blocks the host (wait %v, %v)", round, w, err)
		}
	}
}

// waitLocks waits until query, on key, counts no lock: the server drops
// a session's locks as it ends its backend, a moment after the session's
// end was asked for.
func waitLocks(t *testing.T, g *Gate, query string, key int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		var n int
		if err := g.pool.QueryRow(ctx, query, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("a lock ended sessions held is still held")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A Gate whose session the server ended (a restart, a network failure)
// takes a new one at its next call, so the lease it then takes counts for
// the other spiders; its old leases do not.
func TestGateRenewsLostSession(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	o := hostgate.Options{Conns: 1, LeaseTTL: time.Hour}
	a, b := openGate(t, openTest(t, dsn, schema), o), openGate(t, openTest(t, dsn, schema), o)
	old := a.holder
	if _, err := b.pool.Exec(context.Background(), `SELECT pg_terminate_backend($1)`, a.hold.PgConn().PID()); err != nil {
		t.Fatal(err)
	}
	waitLocks(t, b, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1
		AND classid::bigint = $1::bigint >> 32 AND objid::bigint = $1::bigint & 4294967295`, old)
	if _, w, err := a.TryAcquire("h", 0); w != 0 || err != nil {
		t.Fatalf("lease after the session was lost: wait %v, %v", w, err)
	}
	if a.holder == old {
		t.Error("the Gate kept its lost holder")
	}
	if _, w, err := b.TryAcquire("h", 0); w == 0 || err != nil {
		t.Errorf("the lease taken after the loss does not count (wait %v, %v)", w, err)
	}
}

// A list a spider of version 1 created (the list alone) is migrated to
// the latest version by the next spider that opens it: its lines stay,
// the history and the hosts' pace work, and the claim's index of first
// visits waiting (version 3) is there.
func TestMigrateFromVersion1(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	all := migrations
	migrations = all[:1]
	old, err := Open(context.Background(), dsn, Options{Schema: schema})
	migrations = all
	if err != nil {
		t.Fatal(err)
	}
	lock(t, old, "a")
	mustRun(t, old, &list.Cycle{Spider: "a", Now: t0, Add: []list.Add{{URL: "http://h/"}}})
	old.Close()

	s := openTest(t, dsn, schema)
	var v, lines int
	if err := s.pool.QueryRow(context.Background(), `SELECT (SELECT version FROM schema_version), (SELECT count(*) FROM lines)`).Scan(&v, &lines); err != nil {
		t.Fatal(err)
	}
	if v != len(migrations) || lines != 1 {
		t.Errorf("after the migration: version %d, %d lines; want %d, 1", v, lines, len(migrations))
	}
	var idx int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'lines_waiting'`, schema).Scan(&idx); err != nil || idx != 1 {
		t.Errorf("index lines_waiting after the migration: %d (%v), want 1", idx, err)
	}
	if err := s.History().Put([]meta.Record{{URL: "http://h/", Status: 200}}); err != nil {
		t.Errorf("history after the migration: %v", err)
	}
	if _, w, err := openGate(t, s, hostgate.Options{}).TryAcquire("h", 0); w != 0 || err != nil {
		t.Errorf("gate after the migration: wait %v, %v", w, err)
	}
}

// A reader with no Gate (spider status) reads the Crawl-delay a Gate
// published, until it expires.
func TestStoreCrawlDelay(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	s := openTest(t, dsn, schema)
	if err := openGate(t, openTest(t, dsn, schema), hostgate.Options{}).SetCrawlDelay("h:80", 3*time.Second); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if d := s.CrawlDelay(ctx, "h:80", time.Now()); d != 3*time.Second {
		t.Errorf("published 3s, read %v", d)
	}
	if d := s.CrawlDelay(ctx, "h:80", time.Now().Add(25*time.Hour)); d != 0 {
		t.Errorf("expired Crawl-delay read as %v", d)
	}
	if d := s.CrawlDelay(ctx, "other", time.Now()); d != 0 {
		t.Errorf("a host never paced: %v", d)
	}
}
