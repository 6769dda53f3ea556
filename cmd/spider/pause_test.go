package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// TestPausedClaimantLosesClaims stops a spider with SIGSTOP while it holds
// claims with fetches in flight. Another spider keeps its hands off those
// claims while the paused spider's heartbeat is younger than the lease,
// takes them back once it is older, and fetches and records the pages,
// which were edited meanwhile. The paused spider, continued, must drop the
// stale results of the claims it lost: neither the list's lines nor the
// mirror's copies may go back to what it fetched before the pause.
//
// SPIDER_PAUSED_LEASE sets the paused spider's own --lease (default: the
// same 10s as the other spider's). The claimant's own lease is the one
// that counts: it publishes it with its heartbeat, and it is the one the
// claimant checks before writing what it fetched.
func TestPausedClaimantLosesClaims(t *testing.T) {
	const (
		lease   = 10 * time.Second // the least --lease accepts
		latency = 200 * time.Millisecond
	)
	site := sitetest.New(sitetest.Options{Topics: 30, Latency: latency})
	pausedUA, otherUA := "; paused)", "; other)"
	var pausedActive atomic.Int32 // requests of the paused spider being answered
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.UserAgent(), pausedUA) {
			pausedActive.Add(1)
			defer pausedActive.Add(-1)
		}
		site.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL
	dir := t.TempDir()
	listPath, mirrorDir := filepath.Join(dir, "spider.list"), filepath.Join(dir, "mirror")
	common := []string{"--start", base + "/", "--delay", "0", "--concurrency", "2", "--lease", lease.String(), "-v"}

	pausedArgs := append([]string{"--profile", "slow", "--spider-id", "paused", "--batch", "20"}, common...)
	claimLease := lease // the lease that decides when the paused spider's claims go
	if l := os.Getenv("SPIDER_PAUSED_LEASE"); l != "" {
		d, err := time.ParseDuration(l)
		if err != nil {
			t.Fatalf("SPIDER_PAUSED_LEASE: %v", err)
		}
		claimLease = d
		pausedArgs = append(pausedArgs, "--lease", l) // the last --lease wins
		t.Logf("the paused spider runs with --lease %s, the other with %v", l, lease)
	}
	paused := startSpider(t, dir, pausedArgs...)
	claimsOf := func(es []list.Entry, id string) map[string]list.Entry {
		m := map[string]list.Entry{}
		for _, e := range es {
			if e.Spider == id {
				m[e.URL] = e
			}
		}
		return m
	}

	// Pause it mid-batch: holding claims, with pages already downloaded, and
	// not inside a pass. (A spider stopped while it holds the list's lock
	// stops every other spider too: the lease frees claims, not the lock.)
	var (
		stoppedAt time.Time
		retries   int
	)
	listLock := flock.New(listPath + ".lock")
	for {
		eventually(t, 30*time.Second, "the paused spider holding claims, with pages downloaded", func() bool {
			es := readList(t, listPath)
			done := 0
			for _, e := range es {
				if e.File != "" {
					done++
				}
			}
			return len(claimsOf(es, "paused")) >= 6 && done >= 2
		})
		sendSignal(t, paused, syscall.SIGSTOP)
		stoppedAt = time.Now()
		free, err := listLock.TryLock()
		if err != nil {
			t.Fatal(err)
		}
		if free {
			listLock.Unlock()
			break
		}
		retries++
		if retries > 20 {
			t.Fatal("the spider held the list's lock at each of 20 pauses")
		}
		sendSignal(t, paused, syscall.SIGCONT)
		// Let the pass end before pausing again: readers no longer wait
		// for the lock, so reading the list does not wait for it either.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		ok, err := listLock.TryLockContext(ctx, time.Millisecond)
		cancel()
		if !ok {
			t.Fatalf("the resumed spider kept the list's lock: %v", err)
		}
		listLock.Unlock()
	}
	held := claimsOf(readList(t, listPath), "paused") // its claims at the pause
	if len(held) < 3 {
		t.Fatalf("paused spider holds %d claims at the pause; the test did not pause it mid-batch", len(held))
	}
	hb, err := readSpiderStatus(listPath, "paused") // its last status before the pause
	if err != nil {
		t.Fatal(err)
	}
	expiry := hb.Heartbeat.Add(claimLease)
	t.Logf("paused with %d claims (%d pauses retried: it held the list lock); heartbeat %v before the pause, lease ends in %v",
		len(held), retries, stoppedAt.Sub(hb.Heartbeat).Round(time.Millisecond), time.Until(expiry).Round(time.Millisecond))

	// The fetches in flight at the pause are answered (into the stopped
	// process's socket buffers); then every page it holds changes, so the
	// copies it fetched before the pause are older than the site's.
	eventually(t, 10*time.Second, "the site answering the paused spider's fetches in flight", func() bool {
		return pausedActive.Load() == 0
	})
	revision := regexp.MustCompile(`Topic #\d+, revision \d+\.`)
	edited := map[string][]byte{} // URL -> revision marker now served
	for u := range held {
		p := strings.TrimPrefix(u, base)
		site.EditTopic(p) // pages other than topics are left as they are
		if body, ok := site.Body(p); ok && revision.Match(body) {
			edited[u] = revision.Find(body)
		}
	}
	if len(edited) == 0 {
		t.Fatalf("none of the %d pages the paused spider holds is a topic page that can be edited", len(held))
	}

	// Another spider. While the heartbeat is younger than the lease, its
	// passes leave the claims alone. Its 20s window keeps it polling the
	// list every 5s (a quarter of the window), and it fetches a page a second
	// time only 20s after the first, about when the test ends.
	other := startSpider(t, dir, append([]string{"--profile", "slow", "--spider-id", "other", "--batch", "50", "--window", "20s"}, common...)...)
	eventually(t, 10*time.Second, "the other spider's first pass", func() bool {
		_, err := readSpiderStatus(listPath, "other")
		return err == nil
	})
	es := readList(t, listPath)
	if time.Now().Before(expiry.Add(-time.Second)) {
		for u := range held {
			if e := entryOf(es, u); e.Spider != "paused" {
				t.Errorf("claim on %s taken from a live spider within its lease: %+v", u, e)
			}
		}
	} else {
		t.Logf("the lease ended before the other spider's first pass could be checked")
	}

	// Once the heartbeat is older than the lease, the other spider takes
	// the claims back, fetches the pages and records them.
	eventually(t, claimLease+30*time.Second, "the other spider recording every page the paused spider held", func() bool {
		es := readList(t, listPath)
		for u := range held {
			if e := entryOf(es, u); e.Spider != "" || e.State != list.Downloaded {
				return false
			}
		}
		return true
	})
	snapAt := time.Now()
	recorded := map[string]list.Entry{} // the list as the other spider left it, before the paused spider continues
	for _, e := range readList(t, listPath) {
		recorded[e.URL] = e
	}
	checkRevisions := func(when string) {
		t.Helper()
		for u, want := range edited {
			e := recorded[u]
			got, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(e.File)))
			if err != nil {
				t.Errorf("%s: %s: %v", when, u, err)
			} else if have := revision.Find(got); !bytes.Equal(have, want) {
				t.Errorf("%s: mirror copy of %s has %q, want %q as recorded by the other spider at %v",
					when, u, have, want, e.Modified.Format(time.TimeOnly))
			}
		}
	}
	checkRevisions("before the paused spider continues")
	if ss, err := readSpiderStatus(listPath, "paused"); err != nil || !ss.Heartbeat.Equal(hb.Heartbeat) {
		t.Fatalf("the paused spider's status changed while it was stopped: %+v, %v", ss, err)
	}
	inFlight := 0
	firstOther := map[string]time.Time{}
	for _, r := range site.Requests() {
		switch {
		case strings.HasSuffix(r.UserAgent, pausedUA) && r.Time.After(stoppedAt):
			inFlight++ // answered while the spider was stopped: it was in flight
		case strings.HasSuffix(r.UserAgent, otherUA):
			if _, ok := firstOther[base+r.Path]; !ok {
				firstOther[base+r.Path] = r.Time
			}
		}
	}
	for u := range held {
		switch at, ok := firstOther[u]; {
		case !ok:
			t.Errorf("the other spider recorded %s without fetching it", u)
		case at.Before(expiry):
			t.Errorf("the other spider fetched %s at %v, %v before the paused spider's lease ended",
				u, at.Format(time.StampMilli), expiry.Sub(at))
		}
	}
	if inFlight == 0 {
		t.Logf("note: no fetch of the paused spider was in flight at the pause")
	}

	// Continue the paused spider and watch its passes: each publishes its
	// status; the poll is fast because a pass's counts last only until
	// the next pass.
	var (
		mu       sync.Mutex
		seen     = map[time.Time]list.CycleStats{}
		stopPoll = make(chan struct{})
		polled   = make(chan struct{})
	)
	go func() {
		defer close(polled)
		for {
			select {
			case <-stopPoll:
				return
			default:
			}
			if ss, err := readSpiderStatus(listPath, "paused"); err == nil && ss.Heartbeat.After(hb.Heartbeat) {
				mu.Lock()
				seen[ss.LastCycle.At] = ss.LastCycle
				mu.Unlock()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	total := func() (passes, dropped, kept int) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range seen {
			passes++
			dropped += c.Dropped
			kept += c.Recorded
		}
		return
	}
	woke := time.Now()
	sendSignal(t, paused, syscall.SIGCONT)
	eventually(t, 30*time.Second, "the continued spider's passes carrying the results of the claims it lost", func() bool {
		_, dropped, kept := total()
		return dropped+kept >= len(held)
	})
	passes, dropped, rec := total()
	t.Logf("continued spider: %d passes in %v, %d results dropped, %d recorded; %d of its fetches were in flight at the pause",
		passes, time.Since(woke).Round(time.Millisecond), dropped, rec, inFlight)

	sendSignal(t, paused, syscall.SIGTERM)
	sendSignal(t, other, syscall.SIGTERM)
	if code := paused.wait(30 * time.Second); code != 0 {
		t.Errorf("paused spider exited %d after SIGTERM; output:\n%s", code, paused.output())
	}
	if code := other.wait(30 * time.Second); code != 0 {
		t.Errorf("other spider exited %d after SIGTERM; output:\n%s", code, other.output())
	}
	close(stopPoll)
	<-polled
	if ss, err := readSpiderStatus(listPath, "paused"); err == nil {
		mu.Lock()
		seen[ss.LastCycle.At] = ss.LastCycle // its last pass, on SIGTERM
		mu.Unlock()
	}
	passes, dropped, rec = total()
	if dropped != len(held) {
		t.Errorf("the continued spider dropped %d results in %d passes, want %d: one per claim it lost", dropped, passes, len(held))
	}
	for _, line := range strings.Split(paused.output(), "\n") {
		if strings.Contains(line, "msg=stopped") || strings.Contains(line, "dropped") {
			t.Logf("paused spider: %s", line)
		}
	}

	// Before readList, which replays a journal it finds.
	if fi, err := os.Stat(listPath + ".journal"); err == nil && fi.Size() > 0 {
		t.Errorf("journal not empty after both spiders stopped: %d bytes", fi.Size())
	}
	final := readList(t, listPath)
	byURL := checkOnce(t, final)
	for _, e := range final {
		if e.Spider != "" {
			t.Errorf("claim left after both spiders stopped: %+v", e)
		}
	}
	// Nothing the other spider recorded went back in time; and a line the
	// paused spider had held changed after that only if the other spider
	// fetched it again.
	refetched := map[string]bool{}
	for _, r := range site.Requests() {
		if strings.HasSuffix(r.UserAgent, otherUA) && r.Time.After(snapAt) {
			refetched[base+r.Path] = true
		}
	}
	for u, was := range recorded {
		now, ok := byURL[u]
		switch {
		case !ok:
			t.Errorf("line %s disappeared", u)
		case was.File != "" && (now.File == "" || now.Modified.Before(was.Modified)):
			t.Errorf("line %s went back: recorded %s %v by the other spider, now %s %v", u, was.File, was.Modified, now.File, now.Modified)
		case held[u].URL != "" && (now.State != was.State || !now.Modified.Equal(was.Modified)) && !refetched[u]:
			t.Errorf("line %s, lost by the paused spider and recorded by the other as %s %v, is now %s %v though the other did not fetch it again",
				u, was.State, was.Modified, now.State, now.Modified)
		}
	}
	checkRevisions("after the paused spider continued")
	if rest, _ := filepath.Glob(listPath + ".tmp-*"); len(rest) > 0 {
		t.Errorf("temp files of the list left: %v", rest)
	}
}

// entryOf returns the line of url in es, or the zero Entry.
func entryOf(es []list.Entry, url string) list.Entry {
	for _, e := range es {
		if e.URL == url {
			return e
		}
	}
	return list.Entry{}
}
