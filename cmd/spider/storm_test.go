package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/internal/pgtest"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// stormSlot is one spider of the storm: the arguments it is always
// restarted with and its current process.
type stormSlot struct {
	id   string
	args []string
	p    *proc
}

// stormStats counts what the storm driver did.
type stormStats struct {
	kills, restarts, already, unexpected int
	maxReap                              time.Duration // longest SIGKILL to reaped
	journals, torn                       int           // kills that left a journal to replay, a torn last line
}

// TestKillStorm runs fast and slow spiders on one list and one mirror while
// a driver SIGKILLs a random one every 50-500 ms and restarts it at once,
// on a list file and on a list in PostgreSQL (one driver, one set of
// invariants; see stormStore for which apply to which store). Afterwards
// every URL is in the list once, every page of the site is there with its
// copy in the mirror, no claim is held after one more pass, and no mirror
// temp file is left: the ones killed mirror writers leave must be unlocked,
// and removed by the next spider once they are a minute old.
//
// SPIDER_STORM_KILLS sets the number of kills per store (default 150, 40
// with -short), SPIDER_STORM_PROCS the number of spiders (default 4, half
// fast, half slow), SPIDER_STORM_SEED the random seed (logged).
// scripts/kill-storm runs a long storm.
func TestKillStorm(t *testing.T) {
	for _, name := range []string{"file", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var store *stormStore
			if name == "file" {
				store = fileStorm(t, dir)
			} else {
				store = pgStorm(t, dir)
			}
			killStorm(t, dir, store)
		})
	}
}

// stormConfig is the size of a storm, from the environment.
type stormConfig struct {
	kills, procs int
	seed         uint64
	budget       time.Duration // for the whole storm and the checks after it
}

func stormConfigOf(t *testing.T) stormConfig {
	t.Helper()
	c := stormConfig{kills: 150, procs: 4, seed: uint64(time.Now().UnixNano())}
	if testing.Short() {
		c.kills = 40
	}
	for _, v := range []struct {
		env string
		n   *int
	}{{"SPIDER_STORM_KILLS", &c.kills}, {"SPIDER_STORM_PROCS", &c.procs}} {
		if s := os.Getenv(v.env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || v.n == &c.procs && n < 2 {
				t.Fatalf("%s=%q: want a positive number (at least 2 spiders)", v.env, s)
			}
			*v.n = n
		}
	}
	if s := os.Getenv("SPIDER_STORM_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SPIDER_STORM_SEED=%q: %v", s, err)
		}
		c.seed = n
	}
	// 300 kills take about 300 × 275 ms ≈ 83 s of pauses; the rest is slack
	// for the race detector, the restarts and the passes after the storm.
	c.budget = 4 * time.Minute
	if c.kills > 300 {
		c.budget = time.Duration(c.kills) * c.budget / 300
	}
	return c
}

// stormSlots returns the spiders of a storm of n: the first half (rounded
// up) fast, the rest slow, each with the store's arguments.
func stormSlots(n int, base string, storeArgs []string) []*stormSlot {
	common := append([]string{"--start", base + "/", "--delay", "0", "--concurrency", "2", "-v"}, storeArgs...)
	slots := make([]*stormSlot, n)
	for i := range slots {
		s := &stormSlot{}
		if i < (n+1)/2 {
			s.id = "fast" + strconv.Itoa(i+1)
			s.args = []string{"--profile", "fast", "--spider-id", s.id, "--window", "2s", "--max-level", "2", "--batch", "2"}
		} else {
			s.id = "slow" + strconv.Itoa(i-(n+1)/2+1)
			s.args = []string{"--profile", "slow", "--spider-id", s.id, "--window", "4s", "--batch", "4"}
		}
		s.args = append(s.args, common...)
		slots[i] = s
	}
	return slots
}

// killStorm runs the storm on store, stops its spiders gracefully, then
// checks the list and the mirror.
func killStorm(t *testing.T, dir string, store *stormStore) {
	c := stormConfigOf(t)
	t.Logf("%s: seed %d (rerun with SPIDER_STORM_SEED=%d), %d kills over %d spiders, time budget %v",
		store.name, c.seed, c.seed, c.kills, c.procs, c.budget)
	rng := rand.New(rand.NewPCG(c.seed, c.seed^0x9e3779b97f4a7c15))
	begin := time.Now()
	deadline := begin.Add(c.budget)

	site, base := newSite(t, sitetest.Options{Topics: 60, Latency: 5 * time.Millisecond})
	slots := stormSlots(c.procs, base, store.args)
	var st stormStats
	for _, s := range slots {
		s.p = startSpider(t, dir, s.args...)
	}
	// The storm starts once every spider runs: each has published a status
	// from its own process.
	for _, s := range slots {
		waitStormSpider(t, &st, dir, store, s, deadline)
	}
	stormStart := time.Now()
	stormDrive(t, &st, dir, store, slots, c, rng, deadline)
	stormTook := time.Since(stormStart)

	// Stop every spider gracefully. SIGTERM is only safe once a process has
	// set up its signal handling, which it has done once it published its
	// status.
	for _, s := range slots {
		waitStormSpider(t, &st, dir, store, s, deadline)
	}
	for _, s := range slots {
		sendSignal(t, s.p, syscall.SIGTERM)
	}
	for _, s := range slots {
		if code := s.p.wait(60 * time.Second); code != 0 {
			t.Errorf("%s exited %d after SIGTERM; output:\n%s", s.id, code, s.p.output())
		}
	}
	requests := site.Requests()
	cancelled := 0
	for _, r := range requests {
		if r.Status == 503 {
			cancelled++ // the client went away mid-fetch: a kill landed during a fetch
		}
	}
	afterStorm := store.read()
	stormClaims := 0
	for _, e := range afterStorm {
		if e.Spider != "" {
			stormClaims++
		}
	}
	es, temps, ranFinal2 := stormAfter(t, dir, store, site, base)

	wall := time.Since(begin)
	t.Logf("storm: %d kills, %d restarts, %d 'already running' exits, %d unexpected exits, longest SIGKILL-to-reaped %v; storm %v, test %v",
		st.kills, st.restarts, st.already, st.unexpected, st.maxReap.Round(time.Millisecond), stormTook.Round(time.Millisecond), wall.Round(time.Millisecond))
	if store.probe != nil {
		t.Logf("kills that left the list mid-pass: %d with a journal to replay, %d with a torn last line", st.journals, st.torn)
	}
	states := map[string]int{}
	for _, e := range es {
		states[e.State.String()]++
	}
	t.Logf("site: %d requests, %d abandoned mid-fetch (503); after the storm %d lines, %d still claimed; final list %d lines %v (site has %d pages), final2 needed: %v",
		len(requests), cancelled, len(afterStorm), stormClaims, len(es), states, len(site.Paths()), ranFinal2)
	t.Logf("left by killed writers: %d mirror temp files (all removed once aged)%s", temps, store.leftovers())
	if wall > c.budget {
		t.Errorf("test took %v, over its budget of %v", wall, c.budget)
	}
}

// stormDrive SIGKILLs a random spider every 50-500 ms and restarts it at
// once, until c.kills kills.
func stormDrive(t *testing.T, st *stormStats, dir string, store *stormStore, slots []*stormSlot, c stormConfig, rng *rand.Rand, deadline time.Time) {
	t.Helper()
	for st.kills < c.kills {
		if time.Now().After(deadline) {
			t.Fatalf("storm not done after %v: %d of %d kills, %d restarts", c.budget, st.kills, c.kills, st.restarts)
		}
		time.Sleep(time.Duration(50+rng.IntN(451)) * time.Millisecond) // pacing, not synchronisation
		for _, s := range slots {
			reapStormSlot(t, st, dir, s)
		}
		s := slots[rng.IntN(len(slots))]
		if err := s.p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatalf("kill %s: %v", s.id, err)
		}
		tk := time.Now()
		select {
		case <-s.p.done: // reaped: no zombie
		case <-time.After(10 * time.Second):
			t.Fatalf("%s (pid %d) still there 10s after SIGKILL", s.id, s.p.cmd.Process.Pid)
		}
		st.maxReap = max(st.maxReap, time.Since(tk))
		if killedBy(s.p, syscall.SIGKILL) {
			st.kills++
			if store.probe != nil {
				store.probe(t, st)
			}
			s.p = startSpider(t, dir, s.args...)
			st.restarts++
		} else {
			reapStormSlot(t, st, dir, s) // it had exited on its own
		}
		if st.kills%25 == 0 {
			checkOnce(t, store.read()) // the list reads, every URL once, mid-storm
		}
	}
}

// stormAfter runs, with every storm spider stopped, one more pass of
// another spider (and, if the storm left pages uncrawled, one until idle),
// checking the list after each; then ages the mirror temp files killed
// writers left, which must be unlocked, and checks that the next spider
// removes them all. It returns the final list, the number of temp files
// and whether the pass until idle ran.
func stormAfter(t *testing.T, dir string, store *stormStore, site *sitetest.Site, base string) ([]list.Entry, int, bool) {
	t.Helper()
	// One more pass of another spider takes back whatever the killed
	// spiders left claimed.
	final := append([]string{"--profile", "fast", "--spider-id", "final", "--cycles", "1", "--start", base + "/", "--delay", "0", "--concurrency", "2"}, store.args...)
	if code, out := spiderRun(t, dir, 60*time.Second, final...); code != 0 {
		t.Fatalf("final pass exited %d:\n%s", code, out)
	}
	es := checkStormList(t, store, "after the final pass")
	missing := stormMissingPages(site, base, es)
	ranFinal2 := len(missing) > 0
	if ranFinal2 {
		// The storm left too little time to crawl everything: finish it.
		t.Logf("after the storm and the final pass, %d of %d pages missing or without a copy (e.g. %s); running final2 --until-idle",
			len(missing), len(site.Paths()), missing[0])
		final2 := append([]string{"--profile", "slow", "--spider-id", "final2", "--until-idle", "--start", base + "/", "--delay", "0", "--concurrency", "2"}, store.args...)
		if code, out := spiderRun(t, dir, 120*time.Second, final2...); code != 0 {
			t.Fatalf("final2 --until-idle exited %d:\n%s", code, out)
		}
		es = checkStormList(t, store, "after final2")
		for _, p := range stormMissingPages(site, base, es) {
			t.Errorf("page %s not in the list with a copy after final2 --until-idle", p)
		}
	}

	// Temp files killed mirror writers left: every process is dead, so none
	// may still be locked. Aged past the minute, the next spider's Open
	// removes them all.
	mirrorDir := filepath.Join(dir, "mirror")
	temps := mirrorTempFiles(t, mirrorDir)
	for _, tmp := range temps {
		if locked, err := flockHeld(tmp); err != nil {
			t.Errorf("probe %s: %v", tmp, err)
		} else if locked {
			t.Errorf("mirror temp file %s still locked after every spider exited", tmp)
		}
		old := time.Now().Add(-2 * time.Minute)
		if err := os.Chtimes(tmp, old, old); err != nil {
			t.Errorf("age %s: %v", tmp, err)
		}
	}
	if code, out := spiderRun(t, dir, 60*time.Second, final...); code != 0 {
		t.Fatalf("cleanup pass exited %d:\n%s", code, out)
	}
	for _, tmp := range mirrorTempFiles(t, mirrorDir) {
		t.Errorf("mirror temp file older than a minute and unlocked, not removed by the next spider: %s", tmp)
	}
	es = checkStormList(t, store, "after the cleanup pass")
	checkMirror(t, mirrorDir, es)
	return es, len(temps), ranFinal2
}

// checkStormList checks the list after a pass with no spider running:
// what only the store has (its check), then that the list reads with
// every URL once and no line claimed. It returns the entries.
func checkStormList(t *testing.T, store *stormStore, when string) []list.Entry {
	t.Helper()
	store.check(t, when) // before reading: a file reader replays a journal it finds
	es := store.read()
	checkOnce(t, es)
	for _, e := range es {
		if e.Spider != "" {
			t.Errorf("%s: line still claimed by %s, which no longer runs: %s %s", when, e.Spider, e.State, e.URL)
		}
	}
	return es
}

// stormMissingPages returns the site's pages that are not in the list with
// a copy.
func stormMissingPages(site *sitetest.Site, base string, es []list.Entry) []string {
	byURL := map[string]list.Entry{}
	for _, e := range es {
		byURL[e.URL] = e
	}
	var missing []string
	for _, p := range site.Paths() {
		if e, ok := byURL[base+p]; !ok || e.File == "" {
			missing = append(missing, p)
		}
	}
	return missing
}

// reapStormSlot restarts the slot's spider if it exited on its own. A
// restart that found its previous incarnation's lock still held exits 0
// with "already running": counted, and restarted so that the set keeps
// running. Any other exit is a failure.
func reapStormSlot(t *testing.T, st *stormStats, dir string, s *stormSlot) {
	t.Helper()
	select {
	case <-s.p.done:
	default:
		return
	}
	out := s.p.output()
	if s.p.code == 0 && strings.Contains(out, "already running") {
		st.already++
	} else {
		st.unexpected++
		t.Errorf("%s exited on its own with %s; output:\n%s", s.id, s.p.cmd.ProcessState, clipOutput(out))
		if st.unexpected > 5 {
			t.FailNow()
		}
	}
	s.p = startSpider(t, dir, s.args...)
	st.restarts++
}

// waitStormSpider waits until the slot's current process has published its
// status (so it runs and handles signals), restarting it as reapStormSlot
// does.
func waitStormSpider(t *testing.T, st *stormStats, dir string, store *stormStore, s *stormSlot, deadline time.Time) {
	t.Helper()
	eventually(t, max(time.Until(deadline), 30*time.Second), s.id+" publishing its status", func() bool {
		reapStormSlot(t, st, dir, s)
		return store.running(t, s.id, s.p.cmd.Process.Pid)
	})
}

// stormProbeDamage looks, right after a kill and while no pass runs, for
// what a pass the killed spider died in left behind: a journal not yet
// emptied, a last line without its newline. The next pass repairs both.
func stormProbeDamage(t *testing.T, st *stormStats, listPath string) {
	t.Helper()
	lk := flock.New(listPath + ".lock")
	ok, err := lk.TryLock()
	if err != nil {
		t.Fatalf("probe the list's lock: %v", err)
	}
	if !ok {
		return // a pass runs: what is there may be its work in progress
	}
	defer lk.Unlock()
	if fi, err := os.Stat(listPath + ".journal"); err == nil && fi.Size() > 0 {
		st.journals++
	}
	if f, err := os.Open(listPath); err == nil {
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			var b [1]byte
			if _, err := f.ReadAt(b[:], fi.Size()-1); err == nil && b[0] != '\n' {
				st.torn++
			}
		}
	}
}

// killedBy reports whether the exited process p died of signal sig.
func killedBy(p *proc, sig syscall.Signal) bool {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// readSpiderStatus reads LIST.spider-ID.json as the spider last wrote it.
func readSpiderStatus(listPath, id string) (*list.SpiderStatus, error) {
	b, err := os.ReadFile(listPath + ".spider-" + id + ".json")
	if err != nil {
		return nil, err
	}
	var st list.SpiderStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// mirrorTempFiles returns the temp files of mirror writers under dir.
func mirrorTempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var temps []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".spider-tmp") {
			temps = append(temps, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	sort.Strings(temps)
	return temps
}

// flockHeld reports whether some process holds an flock on the file at p.
func flockHeld(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// clipOutput keeps the end of a long process output.
func clipOutput(s string) string {
	const keep = 8 << 10
	if len(s) <= keep {
		return s
	}
	return "…" + s[len(s)-keep:]
}

// stormStore is the list a storm runs on: the arguments that point its
// spiders at it, how the test reads it, and the invariants only it has.
// Both stores: every URL once (mid-storm too), every page with a copy in
// the mirror, no claim after one more pass, no mirror temp file left.
// File only: no journal left to replay and no temp file of the list after
// a pass, the journals and torn last lines kills leave counted (probe).
// PostgreSQL only: no advisory lock of the list's spiders (or host gates)
// still held, and no spider shown running, once every process exited.
type stormStore struct {
	name    string
	args    []string
	read    func() []list.Entry
	running func(t *testing.T, id string, pid int) bool // the spider's process published its status
	probe   func(t *testing.T, st *stormStats)          // right after a kill; nil if none
	check   func(t *testing.T, when string)             // with no spider running
	// leftovers describes what killed processes may leave behind that no
	// spider removes, for the log.
	leftovers func() string
}

// fileStorm is the list file spider.list in dir, every spider's default.
func fileStorm(t *testing.T, dir string) *stormStore {
	listPath := filepath.Join(dir, "spider.list")
	return &stormStore{
		name: "file",
		read: func() []list.Entry { return readList(t, listPath) },
		running: func(t *testing.T, id string, pid int) bool {
			ss, err := readSpiderStatus(listPath, id)
			return err == nil && ss.PID == pid
		},
		probe: func(t *testing.T, st *stormStats) { stormProbeDamage(t, st, listPath) },
		check: func(t *testing.T, when string) {
			t.Helper()
			if fi, err := os.Stat(listPath + ".journal"); err == nil && fi.Size() > 0 {
				t.Errorf("%s: journal %s not empty (%d bytes)", when, listPath+".journal", fi.Size())
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %v", when, err)
			}
			tmps, _ := filepath.Glob(listPath + ".tmp-*")
			for _, tmp := range tmps {
				t.Errorf("%s: temp file of the list left: %s", when, tmp)
			}
		},
		leftovers: func() string {
			statusTemps, _ := filepath.Glob(listPath + ".spider-*.json.tmp-*")
			return fmt.Sprintf(", %d status temp files (%s.spider-*.json.tmp-*)", len(statusTemps), filepath.Base(listPath))
		},
	}
}

// pgStorm is a list in a schema of the test's own on the test server,
// named in a config file in dir.
func pgStorm(t *testing.T, dir string) *stormStore {
	conf, schema := pgConfig(t, dir, "")
	ctx := context.Background()
	s, err := pglist.Open(ctx, pgtest.DSN(t), pglist.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &stormStore{
		name: "postgres",
		args: []string{"--config", conf},
		read: func() []list.Entry {
			var es []list.Entry
			if err := s.Scan(ctx, func(e *list.Entry) error { es = append(es, e.Clone()); return nil }); err != nil {
				t.Fatalf("scan the list: %v", err)
			}
			return es
		},
		running: func(t *testing.T, id string, pid int) bool {
			sts, err := s.Statuses(ctx)
			if err != nil {
				t.Fatalf("statuses: %v", err)
			}
			for _, st := range sts {
				if st.Spider == id {
					return st.PID == pid && st.Running
				}
			}
			return false
		},
		check: func(t *testing.T, when string) {
			t.Helper()
			// A session ends on the server shortly after its process
			// closed it or died: poll until the server shows it.
			held := pgHeldLocks(t, schema)
			for end := time.Now().Add(30 * time.Second); len(held) > 0 && time.Now().Before(end); held = pgHeldLocks(t, schema) {
				time.Sleep(20 * time.Millisecond) // polling the server's view, as eventually does
			}
			for _, h := range held {
				t.Errorf("%s: advisory lock %s still held 30s after every spider exited", when, h)
			}
			sts, err := s.Statuses(ctx)
			if err != nil {
				t.Fatalf("%s: statuses: %v", when, err)
			}
			for _, st := range sts {
				if st.Running {
					t.Errorf("%s: spider %s (pid %d) shown running, but no spider runs", when, st.Spider, st.PID)
				}
			}
		},
		leftovers: func() string { return "" },
	}
}

// pgHeldLocks returns the advisory locks granted on the test server under
// schema's oid, the high half of the keys its spiders and host gates lock
// (see go doc internal/pglist), as "key by backend pid".
func pgHeldLocks(t *testing.T, schema string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT (l.classid::bigint << 32 | l.objid::bigint)::text || ' by backend ' || l.pid
		FROM pg_locks l
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
			AND l.classid = (SELECT oid FROM pg_namespace WHERE nspname = $1)
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`, schema)
	if err != nil {
		t.Fatalf("read pg_locks: %v", err)
	}
	held, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("read pg_locks: %v", err)
	}
	return held
}
