package main

import (
	"encoding/json"
	"errors"
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
// a driver SIGKILLs a random one every 50-500 ms and restarts it at once.
// Afterwards the list must parse with every URL once, hold no claim after
// one more pass, have no journal or temp file left, and name only files the
// mirror has; the temp files killed mirror writers leave must be unlocked,
// and removed by the next spider once they are a minute old.
//
// SPIDER_STORM_KILLS sets the number of kills (default 300, 60 with
// -short), SPIDER_STORM_SEED the random seed (logged). scripts/kill-storm
// runs a long storm.
func TestKillStorm(t *testing.T) {
	target := 300
	if testing.Short() {
		target = 60
	}
	if s := os.Getenv("SPIDER_STORM_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("SPIDER_STORM_KILLS=%q: want a positive number", s)
		}
		target = n
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SPIDER_STORM_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SPIDER_STORM_SEED=%q: %v", s, err)
		}
		seed = n
	}
	// 300 kills take about 300 × 275 ms ≈ 83 s of pauses; the rest is slack
	// for the race detector and the passes after the storm.
	budget := 4 * time.Minute
	if target > 300 {
		budget = time.Duration(target) * budget / 300
	}
	t.Logf("seed %d (rerun with SPIDER_STORM_SEED=%d), %d kills, time budget %v", seed, seed, target, budget)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	begin := time.Now()
	deadline := begin.Add(budget)

	site, base := newSite(t, sitetest.Options{Topics: 60, Latency: 5 * time.Millisecond})
	dir := t.TempDir()
	listPath, mirrorDir := filepath.Join(dir, "spider.list"), filepath.Join(dir, "mirror")
	common := []string{"--start", base + "/", "--delay", "0", "--concurrency", "2", "-v"}
	fastArgs := func(id string) []string {
		return append([]string{"--profile", "fast", "--spider-id", id, "--window", "2s", "--max-level", "2", "--batch", "2"}, common...)
	}
	slowArgs := func(id string) []string {
		return append([]string{"--profile", "slow", "--spider-id", id, "--window", "4s", "--batch", "4"}, common...)
	}
	slots := []*stormSlot{
		{id: "fast1", args: fastArgs("fast1")},
		{id: "fast2", args: fastArgs("fast2")},
		{id: "slow1", args: slowArgs("slow1")},
		{id: "slow2", args: slowArgs("slow2")},
	}
	var st stormStats
	for _, s := range slots {
		s.p = startSpider(t, dir, s.args...)
	}
	// The storm starts once every spider runs: each has published a status
	// from its own process.
	for _, s := range slots {
		waitStormSpider(t, &st, dir, listPath, s, deadline)
	}

	stormStart := time.Now()
	for st.kills < target {
		if time.Now().After(deadline) {
			t.Fatalf("storm not done after %v: %d of %d kills, %d restarts", budget, st.kills, target, st.restarts)
		}
		time.Sleep(time.Duration(50+rng.IntN(451)) * time.Millisecond) // pacing, not synchronisation
		for _, s := range slots {
			reapStormSlot(t, &st, dir, s)
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
			stormProbeDamage(t, &st, listPath)
			s.p = startSpider(t, dir, s.args...)
			st.restarts++
		} else {
			reapStormSlot(t, &st, dir, s) // it had exited on its own
		}
		if st.kills%25 == 0 {
			checkOnce(t, readList(t, listPath)) // the list parses mid-storm
		}
	}
	stormTook := time.Since(stormStart)

	// Stop every spider gracefully. SIGTERM is only safe once a process has
	// set up its signal handling, which it has done once it published its
	// status.
	for _, s := range slots {
		waitStormSpider(t, &st, dir, listPath, s, deadline)
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
	afterStorm := readList(t, listPath)
	stormClaims := 0
	for _, e := range afterStorm {
		if e.Spider != "" {
			stormClaims++
		}
	}

	// One more pass of another spider takes back whatever the killed
	// spiders left claimed.
	final := []string{"--profile", "fast", "--spider-id", "final", "--cycles", "1", "--start", base + "/", "--delay", "0", "--concurrency", "2"}
	if code, out := spiderRun(t, dir, 60*time.Second, final...); code != 0 {
		t.Fatalf("final pass exited %d:\n%s", code, out)
	}
	es := checkStormList(t, listPath, "after the final pass")
	missing := stormMissingPages(site, base, es)
	ranFinal2 := false
	if len(missing) > 0 {
		// The storm left too little time to crawl everything: finish it.
		t.Logf("after the storm and the final pass, %d of %d pages missing or without a copy (e.g. %s); running final2 --until-idle",
			len(missing), len(site.Paths()), missing[0])
		ranFinal2 = true
		final2 := []string{"--profile", "slow", "--spider-id", "final2", "--until-idle", "--start", base + "/", "--delay", "0", "--concurrency", "2"}
		if code, out := spiderRun(t, dir, 120*time.Second, final2...); code != 0 {
			t.Fatalf("final2 --until-idle exited %d:\n%s", code, out)
		}
		es = checkStormList(t, listPath, "after final2")
		for _, p := range stormMissingPages(site, base, es) {
			t.Errorf("page %s not in the list with a copy after final2 --until-idle", p)
		}
	}

	// Temp files killed mirror writers left: every process is dead, so none
	// may still be locked. Aged past the minute, the next spider's Open
	// removes them all.
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
	es = checkStormList(t, listPath, "after the cleanup pass")
	checkMirror(t, mirrorDir, es)

	statusTemps, _ := filepath.Glob(listPath + ".spider-*.json.tmp-*")
	states := map[string]int{}
	for _, e := range es {
		states[e.State.String()]++
	}
	wall := time.Since(begin)
	t.Logf("storm: %d kills, %d restarts, %d 'already running' exits, %d unexpected exits, longest SIGKILL-to-reaped %v; storm %v, test %v",
		st.kills, st.restarts, st.already, st.unexpected, st.maxReap.Round(time.Millisecond), stormTook.Round(time.Millisecond), wall.Round(time.Millisecond))
	t.Logf("kills that left the list mid-pass: %d with a journal to replay, %d with a torn last line", st.journals, st.torn)
	t.Logf("site: %d requests, %d abandoned mid-fetch (503); after the storm %d lines, %d still claimed; final list %d lines %v (site has %d pages), final2 needed: %v",
		len(requests), cancelled, len(afterStorm), stormClaims, len(es), states, len(site.Paths()), ranFinal2)
	t.Logf("left by killed writers: %d mirror temp files (all removed once aged), %d status temp files (%s.spider-*.json.tmp-*)",
		len(temps), len(statusTemps), filepath.Base(listPath))
	if wall > budget {
		t.Errorf("test took %v, over its budget of %v", wall, budget)
	}
}

// checkStormList checks the list and its side files after a pass with no
// spider running: no journal left to replay, no temp file of the list, the
// list parses, every URL once, no line claimed. It returns the entries.
func checkStormList(t *testing.T, listPath, when string) []list.Entry {
	t.Helper()
	// Before readList: a reader replays a journal it finds.
	if fi, err := os.Stat(listPath + ".journal"); err == nil && fi.Size() > 0 {
		t.Errorf("%s: journal %s not empty (%d bytes)", when, listPath+".journal", fi.Size())
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v", when, err)
	}
	tmps, _ := filepath.Glob(listPath + ".tmp-*")
	for _, tmp := range tmps {
		t.Errorf("%s: temp file of the list left: %s", when, tmp)
	}
	es := readList(t, listPath)
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
func waitStormSpider(t *testing.T, st *stormStats, dir, listPath string, s *stormSlot, deadline time.Time) {
	t.Helper()
	eventually(t, max(time.Until(deadline), 30*time.Second), s.id+" publishing its status", func() bool {
		reapStormSlot(t, st, dir, s)
		ss, err := readSpiderStatus(listPath, s.id)
		return err == nil && ss.PID == s.p.cmd.Process.Pid
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
