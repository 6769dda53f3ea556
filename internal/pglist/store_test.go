package pglist

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

var slow = claim.Profile{Name: "slow", Window: 24 * time.Hour, Longest: 7 * 24 * time.Hour, MaxLevel: -1, Stale: 14 * 24 * time.Hour, Batch: 50}

// mustRun runs a pass and fails the test on an error.
func mustRun(t *testing.T, s *Store, c *list.Cycle) *list.Cycle {
	t.Helper()
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatalf("pass of %s: %v", c.Spider, err)
	}
	return c
}

func lock(t *testing.T, s *Store, id string) *SpiderLock {
	t.Helper()
	l, err := s.LockSpider(context.Background(), id)
	if err != nil {
		t.Fatalf("lock %s: %v", id, err)
	}
	return l
}

// Spiders starting at once on a new schema migrate it once, without
// error; a schema a newer spider migrated is refused.
func TestMigrate(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	stores := make([]*Store, 4)
	for i := range errs {
		wg.Add(1)
		// One goroutine per opener, owned by this test, ending with Open.
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(context.Background(), dsn, Options{Schema: schema})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var v int
	if err := stores[0].pool.QueryRow(context.Background(), `SELECT version FROM schema_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(migrations))
	}
	if _, err := stores[0].pool.Exec(context.Background(), `UPDATE schema_version SET version = version + 1`); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(context.Background(), dsn, Options{Schema: schema}); !errors.Is(err, ErrNewerSchema) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("open of a newer schema: %v, want ErrNewerSchema", err)
	}
}

// plainPicker is a list.Picker that is not a claim profile.
type plainPicker struct{}

func (plainPicker) Due(*list.Entry) bool       { return true }
func (plainPicker) Less(a, b *list.Entry) bool { return false }
func (plainPicker) Max() int                   { return 1 }

// A pass the store cannot honour fails before it changes anything: a
// picker that is not a profile, a spider this store does not hold.
func TestRefusedPasses(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	ctx := context.Background()
	add := []list.Add{{URL: "http://h/", Level: 0}}
	if err := s.Run(ctx, &list.Cycle{Spider: "a", Add: add, Pick: &claim.Picker{P: slow}}); !errors.Is(err, ErrNotLocked) {
		t.Errorf("claim without the lock: %v, want ErrNotLocked", err)
	}
	lock(t, s, "a")
	if err := s.Run(ctx, &list.Cycle{Spider: "a", Add: add, Pick: plainPicker{}}); !errors.Is(err, ErrPicker) {
		t.Errorf("a plain picker: %v, want ErrPicker", err)
	}
	if err := s.Run(ctx, &list.Cycle{Spider: "a b", Add: add}); err == nil {
		t.Error("an invalid spider id was accepted")
	}
	if n := len(scanAll(t, s)); n != 0 {
		t.Errorf("refused passes left %d lines", n)
	}
	// An import needs no lock.
	if st, err := s.Add(ctx, add); err != nil || st.Added != 1 {
		t.Errorf("import: %+v, %v", st, err)
	}
}

func scanAll(t *testing.T, s *Store) []list.Entry {
	t.Helper()
	var es []list.Entry
	if err := s.Scan(context.Background(), func(e *list.Entry) error { es = append(es, e.Clone()); return nil }); err != nil {
		t.Fatal(err)
	}
	return es
}

// A spider whose session was lost (the server ended it) opens a new one
// at its next pass: the claims of the old session are void. Its late
// results are dropped and its own old claims taken back, even if no other
// spider took them back meanwhile; claims of the new session record as
// usual.
func TestLostSessionVoidsClaims(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	l := lock(t, s, "a")
	ctx := context.Background()
	mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Add: []list.Add{{URL: "http://h/p"}, {URL: "http://h/q"}}})
	c := mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Pick: &claim.Picker{P: slow, Now: t0}})
	if len(c.Claimed) != 2 {
		t.Fatalf("claimed %v", c.Claimed)
	}
	old := l.epoch
	// With a timeout the call returns once the backend is gone, its
	// advisory lock with it: without, the next pass could find the lock
	// still held by the dying session and refuse to open a new one.
	var gone bool
	if err := s.pool.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, l.conn.PgConn().PID()).Scan(&gone); err != nil || !gone {
		t.Fatalf("terminate the spider's session: %v, %v", gone, err)
	}
	late := []list.Result{{URL: "http://h/p", State: list.Downloaded, File: "p", Modified: t0}}
	c = mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Results: late, Pick: &claim.Picker{P: slow, Now: t0, Want: 1}})
	if l.epoch == old {
		t.Fatal("the session was not renewed")
	}
	if c.Stats.Recorded != 0 || c.Stats.Dropped != 1 || c.Stats.TakenBack != 2 || len(c.Claimed) != 1 {
		t.Fatalf("first pass of the new session: %+v, claimed %v", c.Stats, c.Claimed)
	}
	late[0].URL = c.Claimed[0].URL
	c = mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Results: late})
	if c.Stats.Recorded != 1 {
		t.Fatalf("a result of the new session: %+v", c.Stats)
	}
}

// A spider whose client side of its session failed while the server
// process still runs (busy with a query, or not yet aware the network
// failed) still holds the spider's lock there. At its next pass the
// spider ends that process and takes the lock in a new session; it is not
// refused as running elsewhere.
func TestLostSessionTakesOverItsLock(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	l := lock(t, s, "a")
	ctx := context.Background()
	old, pid := l.epoch, l.conn.PgConn().PID()
	done := make(chan error, 1)
	// A query busy for a minute: pgx cancels a query whose connection
	// fails, and a query that ends finds its client gone.
	go func() {
		_, err := l.conn.Exec(ctx, `DO $$ BEGIN
			WHILE clock_timestamp() < now() + interval '1 minute' LOOP
				BEGIN PERFORM pg_sleep(1); EXCEPTION WHEN query_canceled THEN NULL; END;
			END LOOP; END $$`)
		done <- err
	}()
	// The server process is busy once it runs the query: from then on it
	// does not notice that its client hung up until the query ends.
	for i := 0; ; i++ {
		var busy bool
		err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity
			WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep%')`, int64(pid)).Scan(&busy)
		if err != nil {
			t.Fatal(err)
		}
		if busy {
			break
		}
		if i == 1000 {
			t.Fatal("the spider's session never ran its query")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.conn.PgConn().Conn().Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("the query outlived its connection")
	}
	mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Add: []list.Add{{URL: "http://h/p"}}, Pick: &claim.Picker{P: slow, Now: t0}})
	if l.epoch == old {
		t.Fatal("the session was not renewed")
	}
	var alive bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1)`, int64(pid)).Scan(&alive); err != nil || alive {
		t.Fatalf("the old session's process is still there: %v, %v", alive, err)
	}

	// The new session is lost too, and another process takes the
	// spider's lock before the next pass: that one is left alone, and
	// the spider is refused as running.
	var gone bool
	if err := s.pool.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, int64(l.conn.PgConn().PID())).Scan(&gone); err != nil || !gone {
		t.Fatalf("terminate the spider's session: %v, %v", gone, err)
	}
	other, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	if _, err := other.Exec(ctx, `SELECT pg_advisory_lock($1)`, l.key); err != nil {
		t.Fatal(err)
	}
	defer other.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
	err = s.Run(ctx, &list.Cycle{Spider: "a", Now: t0})
	if !errors.Is(err, list.ErrRunning) {
		t.Errorf("a pass while another process holds the lock: %v, want %v", err, list.ErrRunning)
	}
	if err := other.Ping(ctx); err != nil {
		t.Errorf("the other process holding the lock was ended: %v", err)
	}
}

// The first 100 of 120 due lines cannot be taken: the Picker vetoes them
// (lines of hosts in back-off), or another pass holds them (a spider
// claiming at the same moment selects the same most urgent lines). The
// batch is not left short while other lines are due: the claim looks
// further until it has the batch or none are left.
func TestShortBatchLooksFurther(t *testing.T) {
	ctx := context.Background()
	veto := func(url string) bool { return url < "http://h/100" }
	for _, tc := range []struct {
		name string
		skip func(string) bool
		hold bool
	}{{"vetoed", veto, false}, {"held elsewhere", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := testDSN(t)
			s := openTest(t, dsn, testSchema(t, dsn))
			lock(t, s, "a")
			var adds []list.Add
			for i := range 120 {
				adds = append(adds, list.Add{URL: fmt.Sprintf("http://h/%03d", i), Level: 1})
			}
			mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Add: adds})
			if tc.hold {
				tx, err := s.pool.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if _, err := tx.Exec(ctx, `SELECT id FROM lines WHERE url < 'http://h/100' FOR UPDATE`); err != nil {
					t.Fatal(err)
				}
			}
			c := mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Pick: &claim.Picker{P: slow, Now: t0, Want: 10, Skip: tc.skip}})
			if len(c.Claimed) != 10 {
				t.Fatalf("claimed %d lines, want 10", len(c.Claimed))
			}
			for i, e := range c.Claimed {
				if want := fmt.Sprintf("http://h/%03d", 100+i); e.URL != want {
					t.Errorf("claim %d is %s, want %s", i, e.URL, want)
				}
			}
			c = mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Pick: &claim.Picker{P: slow, Now: t0, Want: 50, Skip: tc.skip}})
			if len(c.Claimed) != 10 {
				t.Errorf("claimed %d of the 10 lines left", len(c.Claimed))
			}
		})
	}
}

// Passes appending the same new links in different orders at once may
// deadlock in the server, which aborts one: the aborted pass runs again,
// and every link ends up in the list once.
func TestConcurrentAppendsSurviveDeadlocks(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	const spiders, links, rounds = 4, 200, 8
	stores := make([]*Store, spiders)
	for i := range stores {
		stores[i] = openTest(t, dsn, schema)
	}
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, spiders)
		for i, s := range stores {
			var adds []list.Add
			for j := range links {
				k := (j*(2*i+1) + 7*i) % links
				if i%2 == 1 {
					k = links - 1 - k
				}
				adds = append(adds, list.Add{URL: fmt.Sprintf("http://h/%d/%d", round, k), Level: 1})
			}
			wg.Add(1)
			// One goroutine per store, owned by this test, ending with its pass.
			go func() {
				defer wg.Done()
				errs[i] = s.Run(context.Background(), &list.Cycle{Spider: "import", Now: t0, Add: adds})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, store %d: %v", round, i, err)
			}
		}
	}
	if n := len(scanAll(t, stores[0])); n != rounds*links {
		t.Errorf("%d lines, want %d", n, rounds*links)
	}
}

// A spider's status is what its last pass published, Running while its
// session holds its lock.
func TestStatuses(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	l := lock(t, s, "a")
	lock(t, s, "b")
	mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Started: t0.Add(-time.Hour), Lease: time.Minute,
		Add: []list.Add{{URL: "http://h/"}}, Pick: &claim.Picker{P: slow, Now: t0}, Extra: []byte(`{"profile":"slow"}`)})
	l.Unlock()
	sts, err := s.Statuses(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 2 {
		t.Fatalf("statuses %+v", sts)
	}
	a, b := sts[0], sts[1]
	if a.Spider != "a" || a.Running || !a.Heartbeat.Equal(t0) || !a.Started.Equal(t0.Add(-time.Hour)) || a.LeaseSec != 60 ||
		a.LastCycle.Added != 1 || a.LastCycle.Claimed != 1 || string(a.Extra) != `{"profile": "slow"}` {
		t.Errorf("status of a: %+v", a)
	}
	if b.Spider != "b" || !b.Running || !b.Heartbeat.IsZero() {
		t.Errorf("status of b: %+v", b)
	}
}

// preferPicker claims the lines it prefers before any other, as the
// crawl's picker of lines fetched ahead does, on top of a batch, for
// two of them.
type preferPicker struct {
	*claim.Picker
	urls []string
}

func (p *preferPicker) Preferred() []string { return p.urls }
func (p *preferPicker) Less(a, b *list.Entry) bool {
	if x, y := slices.Contains(p.urls, a.URL), slices.Contains(p.urls, b.URL); x != y {
		return x
	}
	return p.Picker.Less(a, b)
}
func (p *preferPicker) Max() int { return p.Picker.Max() + 2 }

// Lines a Picker prefers (Preferring) are claimed on top of the batch,
// even where the profile's queries would not reach them: deep lines of a
// large backlog. A preferred line that is not due is not claimed.
func TestPreferredLinesClaimedFirst(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	lock(t, s, "a")
	var adds []list.Add
	for i := range 300 {
		adds = append(adds, list.Add{URL: fmt.Sprintf("http://h/%03d", i), Level: i / 50})
	}
	mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Add: adds})
	fast := claim.Profile{Name: "fast", Window: time.Hour, MaxLevel: 5, Batch: 10}
	want := []string{"http://h/250", "http://h/299"}
	pick := &preferPicker{Picker: &claim.Picker{P: fast, Now: t0}, urls: append(slices.Clone(want), "http://h/nowhere")}
	c := mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Pick: pick})
	if len(c.Claimed) != 12 {
		t.Fatalf("claimed %d lines, want 12", len(c.Claimed))
	}
	for i, url := range want {
		if c.Claimed[i].URL != url {
			t.Errorf("claim %d is %s, want the preferred %s", i, c.Claimed[i].URL, url)
		}
	}
	for _, e := range c.Claimed[2:] {
		if e.Level != 0 {
			t.Errorf("claimed %s at level %d, want the batch from level 0", e.URL, e.Level)
		}
	}
}

// A spider's lock is released when Unlock returns, not when the server
// gets round to ending the session: a spider of the same id started right
// after a graceful exit (a timer's next run, on another host too) takes
// it, and the spider is no longer shown running. Bounded rounds; the
// release used to lag the closed connection.
func TestUnlockReleasesAtOnce(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	s, other := openTest(t, dsn, schema), openTest(t, dsn, schema)
	ctx := context.Background()
	for round := range 50 {
		l := lock(t, s, "a")
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
		l2, err := other.LockSpider(ctx, "a")
		if err != nil {
			t.Fatalf("round %d: lock a right after its Unlock: %v", round, err)
		}
		if err := l2.Unlock(); err != nil {
			t.Fatal(err)
		}
		sts, err := s.Statuses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(sts) != 1 || sts[0].Running {
			t.Fatalf("round %d: statuses right after Unlock: %+v", round, sts)
		}
	}
}

// Opening only an existing list (Options.Existing) refuses a schema that
// holds none, and leaves no schema behind: a mistyped schema in the
// config of spider status is an error, not a new empty list.
func TestOpenExisting(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	ctx := context.Background()
	if s, err := Open(ctx, dsn, Options{Schema: schema, Existing: true}); !errors.Is(err, ErrNoList) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("open of a missing list: %v, want ErrNoList", err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil || exists {
		t.Fatalf("schema %s exists after a refused open: %v %v", schema, exists, err)
	}
	openTest(t, dsn, schema) // creates it
	s, err := Open(ctx, dsn, Options{Schema: schema, Existing: true})
	if err != nil {
		t.Fatalf("open of the list just made: %v", err)
	}
	s.Close()
}

// A user who owns a schema made for the list, and may not create schemas
// in the database, opens it: spider creates its tables there. (The test's
// server user must be allowed to create roles.)
func TestOwnedSchema(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	role := "spidertest_owner_" + strings.TrimPrefix(testSchema(t, dsn), "spidertest_")
	if _, err := conn.Exec(ctx, `CREATE ROLE `+role+` LOGIN PASSWORD 'owner'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop role: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP ROLE `+role); err != nil {
			t.Errorf("drop role: %v", err)
		}
	})
	schema := testSchema(t, dsn) // dropped before the role (cleanups run last first)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema+` AUTHORIZATION `+role); err != nil {
		t.Fatal(err)
	}
	var canCreate bool
	if err := conn.QueryRow(ctx, `SELECT has_database_privilege($1, current_database(), 'CREATE')`, role).Scan(&canCreate); err != nil || canCreate {
		t.Fatalf("role %s may create schemas (%v): the test needs one that may not", role, err)
	}
	s := openTest(t, asUser(t, dsn, role, "owner"), schema)
	if _, err := s.Add(ctx, []list.Add{{URL: "http://h/", Level: 0}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Line(ctx, "http://h/"); err != nil || !ok {
		t.Fatalf("the line added is not there (%v)", err)
	}
}

// asUser returns dsn with its user and password replaced.
func asUser(t *testing.T, dsn, user, password string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(user, password)
		return u.String()
	}
	return dsn + " user=" + user + " password=" + password // the last of a keyword wins
}
