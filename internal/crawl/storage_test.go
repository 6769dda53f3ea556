package crawl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/list"
)

func TestUnwritable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.ENOSPC}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.EDQUOT}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "open", Path: "a", Err: syscall.EROFS}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.EFBIG}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "open", Path: "a", Err: syscall.EACCES}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "open", Path: "a", Err: syscall.ENOTDIR}), false},
		{fs.ErrNotExist, false},
		{errors.New("mirror: unsafe path"), false},
	} {
		if got := unwritable(tc.err); got != tc.want {
			t.Errorf("unwritable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// The back-off while the mirror cannot be written: doubling waits, a
// failure during a wait starts no new round, a whole write ends it, and
// the run gives up after the tries.
func TestStorageBackoff(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	full := errors.New("no space left on device")
	type step struct {
		at       time.Duration // since t0
		op       string        // "fail", "wrote", "check"
		wait     time.Duration // fail: the wait started
		paused   time.Duration // check: until (since t0); -1 = not paused
		gaveUp   bool          // check: verdict(false) != nil
		finalErr bool          // check: verdict(true) != nil
	}
	s := newStorage(time.Second, 3)
	for i, st := range []step{
		{at: 0, op: "check", paused: -1},
		{at: 0, op: "fail", wait: time.Second},
		{at: 500 * time.Millisecond, op: "fail", wait: 0}, // a write under way: same round
		{at: 500 * time.Millisecond, op: "check", paused: time.Second, finalErr: true},
		{at: time.Second, op: "check", paused: -1, finalErr: true},
		{at: time.Second, op: "fail", wait: 2 * time.Second},
		{at: 3 * time.Second, op: "wrote"},
		{at: 3 * time.Second, op: "check", paused: -1},
		{at: 3 * time.Second, op: "fail", wait: time.Second},
		{at: 4 * time.Second, op: "fail", wait: 2 * time.Second},
		{at: 6 * time.Second, op: "fail", wait: 4 * time.Second},
		{at: 6 * time.Second, op: "check", paused: 6*time.Second + time.Hour, gaveUp: true, finalErr: true},
		{at: 20 * time.Second, op: "check", paused: 20*time.Second + time.Hour, gaveUp: true, finalErr: true},
	} {
		now := t0.Add(st.at)
		switch st.op {
		case "fail":
			if w := s.failed(full, now); w != st.wait {
				t.Errorf("step %d: failed started a wait of %v, want %v", i, w, st.wait)
			}
		case "wrote":
			s.wrote()
		case "check":
			want := time.Time{}
			if st.paused >= 0 {
				want = t0.Add(st.paused)
			}
			if got := s.pausedUntil(now); !got.Equal(want) {
				t.Errorf("step %d: paused until %v, want %v", i, got, want)
			}
			if err := s.verdict(false); (err != nil) != st.gaveUp || err != nil && !errors.Is(err, ErrMirrorUnwritable) {
				t.Errorf("step %d: verdict %v, want given up %v", i, err, st.gaveUp)
			}
			if err := s.verdict(true); (err != nil) != st.finalErr {
				t.Errorf("step %d: final verdict %v, want %v", i, err, st.finalErr)
			}
		}
	}
}

// A run whose mirror cannot take its copies backs off and, after the
// tries, ends with ErrMirrorUnwritable; the lines go back unchanged. A
// file size limit on the test process fails the page writes (EFBIG) as a
// full disk would, while the list and the history, smaller, are written.
func TestRunGivesUpOnUnwritableMirror(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "small")
	if sum := v.crawl(t, time.Hour); sum.Fetched != 2 {
		t.Fatalf("first crawl fetched %d, want 2", sum.Fetched)
	}
	before := map[string]list.Entry{}
	for _, u := range []string{v.base + "/", v.base + "/a"} {
		before[u] = v.line(t, u)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	// The limit applies to every file of the process, the test log that
	// go test keeps too: leave room above it, and make the pages larger.
	small := lim
	small.Cur = uint64(128<<10 + testLogSize())
	big := strings.Repeat("x", int(small.Cur)+128<<10)
	v.site.set("/", 200, `<a href="/a">a</a>`+big)
	v.site.set("/a", 200, big)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skipf("no file size limit: %v", err)
	}
	v.clock = v.clock.Add(2 * time.Hour)
	now := v.clock
	e := New(Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Concurrency: 2, Lease: time.Minute, UntilIdle: true, StorageBackoff: 5 * time.Millisecond,
		Now: func() time.Time { return now },
	}, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
	sum, err := e.Run(context.Background())
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, ErrMirrorUnwritable) || !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("Run: %v, want ErrMirrorUnwritable (file too large)", err)
	}
	if sum.Fetched != 0 || sum.Errors != 0 {
		t.Errorf("summary %+v: want nothing fetched, no error recorded", sum)
	}
	// The lines are as they were, unclaimed, and the copies too.
	for u, b := range before {
		if a := v.line(t, u); a.State != b.State || a.File != b.File || !a.Modified.Equal(b.Modified) || a.Spider != "" {
			t.Errorf("%s: %+v, was %+v", u, a, b)
		}
	}
	if got := v.file(t, before[v.base+"/a"].File); got != "small" {
		t.Errorf("good copy harmed: %.40q", got)
	}
	// Five rounds at most: each fetches the two pages once.
	if n := v.hits("/a"); n > 1+defaultStorageTries {
		t.Errorf("/a requested %d times, want at most %d", n, 1+defaultStorageTries)
	}
}

// testLogSize returns the size of the log go test has the test binary
// write (-test.testlogfile), 0 if there is none.
func testLogSize() int64 {
	f := flag.Lookup("test.testlogfile")
	if f == nil || f.Value.String() == "" {
		return 0
	}
	fi, err := os.Stat(f.Value.String())
	if err != nil {
		return 0
	}
	return fi.Size()
}
