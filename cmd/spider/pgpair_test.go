package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// TestFastAndSlowThroughPostgres runs the real binary as a fast and a slow
// spider on one list in PostgreSQL against a changing site: the slow one
// is killed with SIGKILL while it holds claims and restarted, and the
// results are those through a file (TestFastAndSlowSideBySide,
// TestKillMidBatch): every page mirrored once, a deleted page archived
// with its copy kept, a second spider of a profile refused, and no claim
// left after SIGTERM.
func TestFastAndSlowThroughPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about half a minute")
	}
	site, base := newSite(t, sitetest.Options{Topics: 30, Latency: 30 * time.Millisecond})
	dir := t.TempDir()
	conf, schema := pgConfig(t, dir, "archive_after = 2\narchive_span = \"1s\"\n")
	mirrorDir := filepath.Join(dir, "mirror")
	common := []string{"--config", conf, "--start", base + "/", "--delay", "0", "--concurrency", "2", "--lease", "30s"}
	slowArgs := append([]string{"--profile", "slow", "--window", "5s", "--batch", "10"}, common...)
	slow := startSpider(t, dir, slowArgs...)
	eventually(t, 30*time.Second, "the slow spider holding claims with pages downloaded", func() bool {
		claimed, done := 0, 0
		for _, e := range readPG(t, schema) {
			if e.Spider == "slow" {
				claimed++
			}
			if e.File != "" {
				done++
			}
		}
		return claimed >= 3 && done >= 3
	})
	sendSignal(t, slow, syscall.SIGKILL)
	slow.wait(10 * time.Second)
	left := 0
	for _, e := range checkOnce(t, readPG(t, schema)) {
		if e.Spider == "slow" {
			left++
		}
	}
	if left == 0 {
		t.Fatal("the killed spider left no claims: the test did not kill it mid-batch")
	}
	fast := startSpider(t, dir, append([]string{"--profile", "fast", "--window", "1s", "--max-level", "2", "--batch", "5"}, common...)...)
	// The killed spider's session ended with it: its claims return at the
	// fast spider's next pass, and a new slow spider runs at once.
	slow = startSpider(t, dir, append(slowArgs, "-v")...)
	eventually(t, 20*time.Second, "the restarted slow spider holding its lock", func() bool { return strings.Contains(slow.output(), "msg=started") })
	if code, out := spiderRun(t, dir, 20*time.Second, append(slowArgs, "-v")...); code != 0 || !strings.Contains(out, "already running") {
		t.Errorf("a second slow spider: exit %d, %s", code, out)
	}

	eventually(t, 60*time.Second, "mirroring every page", func() bool {
		byURL := map[string]list.Entry{}
		for _, e := range readPG(t, schema) {
			byURL[e.URL] = e
		}
		for _, p := range site.Paths() {
			if e, ok := byURL[base+p]; !ok || e.File == "" {
				return false
			}
		}
		return true
	})
	es := readPG(t, schema)
	checkOnce(t, es)
	if len(es) != len(site.Paths()) {
		t.Errorf("list has %d lines, site has %d pages", len(es), len(site.Paths()))
	}
	checkMirror(t, mirrorDir, es)

	var gone list.Entry
	for _, e := range es {
		if strings.Contains(e.URL, "/topic/") && !strings.Contains(e.URL, "replies") {
			gone = e
			break
		}
	}
	goneBody, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(gone.File)))
	if err != nil {
		t.Fatal(err)
	}
	site.Delete(strings.TrimPrefix(gone.URL, base))
	eventually(t, 30*time.Second, "the deleted page being archived", func() bool {
		for _, e := range readPG(t, schema) {
			if e.URL == gone.URL {
				return e.State == list.Archived
			}
		}
		return false
	})
	if got, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(gone.File))); err != nil || len(got) < len(goneBody) {
		t.Errorf("copy of the deleted page removed or cut: %v", err)
	}

	sendSignal(t, fast, syscall.SIGTERM)
	sendSignal(t, slow, syscall.SIGTERM)
	if code := fast.wait(20 * time.Second); code != 0 {
		t.Errorf("fast exited %d after SIGTERM; output:\n%s", code, fast.output())
	}
	if code := slow.wait(20 * time.Second); code != 0 {
		t.Errorf("slow exited %d after SIGTERM; output:\n%s", code, slow.output())
	}
	es = readPG(t, schema)
	checkOnce(t, es)
	for _, e := range es {
		if e.Spider != "" {
			t.Errorf("claim left after a graceful stop: %+v", e)
		}
	}
	checkMirror(t, mirrorDir, es)
	// The files kept beside the list stay on this machine, in the state
	// directory.
	for _, f := range []string{"list.meta", "list.mirror"} {
		if _, err := os.Stat(filepath.Join(dir, "spider-state", schema, f)); err != nil {
			t.Errorf("state file %s: %v", f, err)
		}
	}
}
