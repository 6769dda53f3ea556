package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// TestKillMidBatch kills a spider with SIGKILL while it holds claims and
// shows that the claims come back to the pool at the next pass of another
// spider, and that no line is lost or duplicated.
func TestKillMidBatch(t *testing.T) {
	site, base := newSite(t, sitetest.Options{Topics: 30, Latency: 100 * time.Millisecond})
	dir := t.TempDir()
	listPath, mirrorDir := filepath.Join(dir, "spider.list"), filepath.Join(dir, "mirror")
	args := []string{"--start", base + "/", "--delay", "0", "--concurrency", "2"}

	slow := startSpider(t, dir, append([]string{"--profile", "slow", "--batch", "20"}, args...)...)
	eventually(t, 20*time.Second, "the slow spider holding claims with pages downloaded", func() bool {
		claimed, done := 0, 0
		for _, e := range readList(t, listPath) {
			if e.Spider == "slow" {
				claimed++
			}
			if e.File != "" {
				done++
			}
		}
		return claimed >= 5 && done >= 3
	})
	sendSignal(t, slow, syscall.SIGKILL)
	slow.wait(5 * time.Second)

	before := readList(t, listPath)
	checkOnce(t, before)
	left := 0
	for _, e := range before {
		if e.Spider == "slow" {
			left++
		}
	}
	if left == 0 {
		t.Fatal("the killed spider left no claims: the test did not kill it mid-batch")
	}

	// One pass of another spider takes the dead spider's claims back.
	code, out := spiderRun(t, dir, 30*time.Second, append([]string{"--profile", "fast", "--cycles", "1"}, args...)...)
	if code != 0 {
		t.Fatalf("fast --cycles 1 exited %d:\n%s", code, out)
	}
	after := readList(t, listPath)
	checkOnce(t, after)
	for _, e := range after {
		if e.Spider != "" {
			t.Errorf("claim still held after a live spider's pass: %+v", e)
		}
	}
	if len(after) < len(before) {
		t.Errorf("list shrank from %d to %d lines", len(before), len(after))
	}

	// A restarted slow spider finishes the mirror: every page, once.
	code, out = spiderRun(t, dir, 60*time.Second, append([]string{"--profile", "slow", "--until-idle"}, args...)...)
	if code != 0 {
		t.Fatalf("slow --until-idle exited %d:\n%s", code, out)
	}
	final := readList(t, listPath)
	byURL := checkOnce(t, final)
	for _, p := range site.Paths() {
		if e, ok := byURL[base+p]; !ok || e.File == "" {
			t.Errorf("page %s missing from the list or the mirror: %+v", p, e)
		}
	}
	checkMirror(t, mirrorDir, final)
}

// TestSecondStartExitsAtOnce is the cron keepalive: a second spider of the
// same profile on the same list exits 0 without a word, and says why with -v.
func TestSecondStartExitsAtOnce(t *testing.T) {
	_, base := newSite(t, sitetest.Options{Topics: 5})
	dir := t.TempDir()
	listPath := filepath.Join(dir, "spider.list")
	first := startSpider(t, dir, "--profile", "slow", "--start", base+"/", "--delay", "0")
	eventually(t, 10*time.Second, "the first spider's first pass", func() bool { return len(readList(t, listPath)) > 0 })

	code, out := spiderRun(t, dir, 10*time.Second, "--profile", "slow", "--start", base+"/")
	if code != 0 || out != "" {
		t.Errorf("second start: exit %d, output %q; want 0 and silence", code, out)
	}
	code, out = spiderRun(t, dir, 10*time.Second, "--profile", "slow", "--start", base+"/", "-v")
	if code != 0 || !strings.Contains(out, "already running") {
		t.Errorf("second start -v: exit %d, output %q; want 0 and 'already running'", code, out)
	}
	// Another profile on the same list runs.
	code, out = spiderRun(t, dir, 30*time.Second, "--profile", "fast", "--start", base+"/", "--cycles", "1")
	if code != 0 || strings.Contains(out, "already running") {
		t.Errorf("fast beside slow: exit %d, output %q", code, out)
	}
	sendSignal(t, first, syscall.SIGINT)
	if code := first.wait(20 * time.Second); code != 0 {
		t.Errorf("first spider exited %d after SIGINT:\n%s", code, first.output())
	}
}

// TestKeepaliveRace starts two spiders of one profile at the same moment,
// as two cron lines firing together would: exactly one runs, the other
// exits 0 saying so (with -v).
func TestKeepaliveRace(t *testing.T) {
	_, base := newSite(t, sitetest.Options{Topics: 5})
	for round := 0; round < 5; round++ {
		dir := t.TempDir()
		args := []string{"--profile", "fast", "--start", base + "/", "--delay", "0", "-v"}
		a, b := startSpider(t, dir, args...), startSpider(t, dir, args...)
		var loser, winner *proc
		select {
		case <-a.done:
			loser, winner = a, b
		case <-b.done:
			loser, winner = b, a
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: both spiders still running after 20s: the lock let two run", round)
		}
		if loser.code != 0 || !strings.Contains(loser.output(), "already running") {
			t.Errorf("round %d: second spider exit %d, output %q", round, loser.code, loser.output())
		}
		select {
		case <-winner.done:
			t.Fatalf("round %d: the other spider exited too (%d): nobody runs\n%s", round, winner.code, winner.output())
		default:
		}
		sendSignal(t, winner, syscall.SIGTERM)
		if code := winner.wait(20 * time.Second); code != 0 {
			t.Errorf("round %d: running spider exited %d after SIGTERM", round, code)
		}
	}
}

// TestSecondSignalExitsAtOnce: a first SIGTERM starts the graceful stop
// (the slow site keeps fetches in flight for 8 s); a SIGINT (Ctrl-C), sent
// right after it, ends the process at once. The list still parses, with every URL once, and the
// claims left behind go back at the next pass of any spider.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	dir, base, p := slowSpiderFetching(t, 8*time.Second)
	listPath := filepath.Join(dir, "spider.list")
	sendSignal(t, p, syscall.SIGTERM)
	// Two signals sent back to back merge into one (POSIX does not queue a
	// pending signal): the second comes once the first has been handled.
	eventually(t, 10*time.Second, "the graceful stop starting", func() bool { return strings.Contains(p.output(), "stopping:") })
	sendSignal(t, p, syscall.SIGINT)
	start := time.Now()
	code := p.wait(5 * time.Second) // a graceful stop would wait for the 8 s fetches
	t.Logf("exited %d, %v after the second signal", code, time.Since(start).Round(time.Millisecond))
	if code != exitSecondSignal || !strings.Contains(p.output(), "stopped at once by a second interrupt") {
		t.Errorf("exit %d, output %q", code, p.output())
	}
	checkOnce(t, readList(t, listPath))
	code, out := spiderRun(t, dir, 30*time.Second, "--profile", "fast", "--start", base+"/", "--cycles", "1", "--delay", "0")
	if code != 0 {
		t.Fatalf("next spider: exit %d\n%s", code, out)
	}
	for _, e := range readList(t, listPath) {
		if e.Spider == "slow" {
			t.Errorf("claim of the killed spider left after another's pass: %+v", e)
		}
	}
}

// TestRepeatedTermStopsGracefully: timeout(1), and a kill of the process
// group, deliver SIGTERM twice at once. Both ask for one graceful stop: the
// fetches in flight finish and are recorded, and the run exits 0.
func TestRepeatedTermStopsGracefully(t *testing.T) {
	dir, _, p := slowSpiderFetching(t, 2*time.Second)
	listPath := filepath.Join(dir, "spider.list")
	sendSignal(t, p, syscall.SIGTERM)
	eventually(t, 10*time.Second, "the graceful stop starting", func() bool { return strings.Contains(p.output(), "stopping:") })
	sendSignal(t, p, syscall.SIGTERM)
	sendSignal(t, p, syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 || strings.Contains(p.output(), "stopped at once") {
		t.Fatalf("exit %d after a repeated SIGTERM, want a graceful stop (0)\n%s", code, p.output())
	}
	checkOnce(t, readList(t, listPath))
	for _, e := range readList(t, listPath) {
		if e.Spider == "slow" {
			t.Errorf("claim left after a graceful stop: %+v", e)
		}
	}
}

// slowSpiderFetching starts a slow spider on a site answering in latency
// and returns once it has fetches in flight beyond the start page: its
// directory, the site's base URL and the process.
func slowSpiderFetching(t *testing.T, latency time.Duration) (dir, base string, p *proc) {
	t.Helper()
	_, base = newSite(t, sitetest.Options{Topics: 20, Latency: latency})
	dir = t.TempDir()
	listPath := filepath.Join(dir, "spider.list")
	p = startSpider(t, dir, "--profile", "slow", "--start", base+"/", "--delay", "0", "--concurrency", "4", "-v")
	eventually(t, 20*time.Second, "fetches in flight", func() bool {
		for _, e := range readList(t, listPath) {
			if e.Spider == "slow" && e.Level > 0 {
				return true
			}
		}
		return false
	})
	return dir, base, p
}
