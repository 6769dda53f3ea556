package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// TestFastAndSlowKilledAndRestarted runs the real binary as a fast and a
// slow spider on one list, a file and a PostgreSQL one alike, against a
// changing site: the slow one is killed with SIGKILL while it holds claims
// and restarted, and the results are the same through both stores: every
// page mirrored once, a deleted page archived with its copy kept, a
// second spider of a profile refused, and no claim left after SIGTERM.
func TestFastAndSlowKilledAndRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about ten seconds")
	}
	for _, store := range []string{"file", "postgres"} {
		t.Run(store, func(t *testing.T) { fastAndSlowKilled(t, store) })
	}
}

func fastAndSlowKilled(t *testing.T, store string) {
	site, base := newSite(t, sitetest.Options{Topics: 30, Latency: 30 * time.Millisecond})
	dir := t.TempDir()
	archive := "archive_after = 2\narchive_span = \"1s\"\n"
	conf := filepath.Join(dir, "spider.toml")
	read := func() []list.Entry { return readList(t, filepath.Join(dir, "spider.list")) }
	if store == "postgres" {
		var schema string
		conf, schema = pgConfig(t, dir, archive)
		read = func() []list.Entry { return readPG(t, schema) }
		// This machine's record of the mirror stays in the state
		// directory; the fetch history and host pace are in the database.
		t.Cleanup(func() {
			state := filepath.Join(dir, "spider-state", schema)
			if _, err := os.Stat(filepath.Join(state, "list.mirror")); err != nil {
				t.Errorf("state file list.mirror: %v", err)
			}
			noSharedStateFiles(t, state)
		})
	} else if err := os.WriteFile(conf, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	mirrorDir := filepath.Join(dir, "mirror")
	common := []string{"--config", conf, "--start", base + "/", "--delay", "0", "--concurrency", "2", "--lease", "30s"}
	slowArgs := append([]string{"--profile", "slow", "--window", "5s", "--batch", "10"}, common...)
	slow := startSpider(t, dir, slowArgs...)
	eventually(t, 30*time.Second, "the slow spider holding claims with pages downloaded", func() bool {
		es, copies := read(), 0
		for _, e := range es {
			if e.File != "" {
				copies++
			}
		}
		return claimsOf(es, "slow") >= 3 && copies >= 3
	})
	sendSignal(t, slow, syscall.SIGKILL)
	slow.wait(10 * time.Second)
	ageKilledTemps(t, mirrorDir)
	es := read()
	checkOnce(t, es)
	if claimsOf(es, "slow") == 0 {
		t.Fatal("the killed spider left no claims: the test did not kill it mid-batch")
	}
	fast := startSpider(t, dir, append([]string{"--profile", "fast", "--window", "1s", "--max-level", "2", "--batch", "5"}, common...)...)
	// The killed spider's session ended with it: its claims return at the
	// fast spider's next pass, and a new slow spider runs at once.
	slowV := append(slices.Clone(slowArgs), "-v")
	slow = startSpider(t, dir, slowV...)
	eventually(t, 20*time.Second, "the restarted slow spider holding its lock", func() bool { return strings.Contains(slow.output(), "msg=started") })
	if code, out := spiderRun(t, dir, 20*time.Second, slowV...); code != 0 || !strings.Contains(out, "already running") {
		t.Errorf("a second slow spider: exit %d, %s", code, out)
	}

	eventually(t, 60*time.Second, "mirroring every page", mirrored(site, base, read))
	es = read()
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
	eventually(t, 30*time.Second, "the deleted page being archived", inState(gone.URL, list.Archived, read))
	if got, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(gone.File))); err != nil ||
		!rewrite.HasBanner(got) || !bytes.Equal(rewrite.Unbanner(got), goneBody) {
		t.Errorf("copy of the deleted page changed, removed or without its banner: %v", err)
	}

	stopAll(t, mirrorDir, read, fast, slow)
}

// ageKilledTemps checks the temp files a killed mirror writer left (the
// mirror's crash contract allows them) with no spider running: none may
// be locked. It ages them past the minute after which the next spider's
// Open removes them, so the restarted spiders must leave none.
func ageKilledTemps(t *testing.T, mirrorDir string) {
	t.Helper()
	for _, tmp := range mirrorTempFiles(t, mirrorDir) {
		if locked, err := flockHeld(tmp); err != nil {
			t.Errorf("probe %s: %v", tmp, err)
		} else if locked {
			t.Errorf("mirror temp file %s still locked after its writer was killed", tmp)
		}
		old := time.Now().Add(-2 * time.Minute)
		if err := os.Chtimes(tmp, old, old); err != nil {
			t.Errorf("age %s: %v", tmp, err)
		}
	}
}
