package hostgate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func open(t *testing.T, dir string, o Options) *Gate {
	t.Helper()
	g, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// Requests of two gates (two processes' views of one list) to one host
// start at least delay apart, whoever makes them.
func TestSpacingAcrossGates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		a, b := open(t, dir, Options{Conns: 8}), open(t, dir, Options{Conns: 8})
		const delay = 200 * time.Millisecond
		var mu sync.Mutex
		var starts []time.Time
		var wg sync.WaitGroup
		for i := range 6 {
			g := a
			if i%2 == 1 {
				g = b
			}
			wg.Go(func() {
				for range 3 {
					l, err := g.Acquire(context.Background(), "h:80", delay, nil)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					starts = append(starts, time.Now())
					mu.Unlock()
					time.Sleep(10 * time.Millisecond) // the fetch
					g.Release(l, Outcome{OK: true})
				}
			})
		}
		wg.Wait()
		sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
		if len(starts) != 18 {
			t.Fatalf("%d requests, want 18", len(starts))
		}
		for i := 1; i < len(starts); i++ {
			if gap := starts[i].Sub(starts[i-1]); gap < delay {
				t.Errorf("requests %d and %d only %v apart, want ≥ %v", i-1, i, gap, delay)
			}
		}
		// and not much slower than the delay allows
		if total := starts[len(starts)-1].Sub(starts[0]); total > 17*delay+time.Second {
			t.Errorf("18 requests took %v, want about %v", total, 17*delay)
		}
	})
}

// Leases of a process that is gone, and expired leases, are dropped.
func TestLeaksRecovered(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := cmd.Process.Pid
	dir := t.TempDir()
	g := open(t, dir, Options{Conns: 1, LeaseTTL: time.Minute})
	now := time.Now().UnixNano()
	rec := `{"next":0,"leases":[{"pid":` + itoa(dead) + `,"id":1,"exp":` + itoa64(now+int64(time.Hour)) + `}]}`
	os.WriteFile(filepath.Join(dir, FileName("dead")), []byte(rec), 0o644)
	if _, w, err := g.TryAcquire("dead", 0); err != nil || w != 0 {
		t.Errorf("a dead process's lease blocks the host (wait %v, %v)", w, err)
	}
	rec = `{"next":0,"leases":[{"pid":` + itoa(os.Getppid()) + `,"id":1,"exp":` + itoa64(now-1) + `}]}`
	os.WriteFile(filepath.Join(dir, FileName("old")), []byte(rec), 0o644)
	if _, w, err := g.TryAcquire("old", 0); err != nil || w != 0 {
		t.Errorf("an expired lease blocks the host (wait %v, %v)", w, err)
	}
	rec = `{"next":0,"leases":[{"pid":` + itoa(os.Getppid()) + `,"id":1,"exp":` + itoa64(now+int64(time.Hour)) + `}]}`
	os.WriteFile(filepath.Join(dir, FileName("live")), []byte(rec), 0o644)
	if _, w, _ := g.TryAcquire("live", 0); w == 0 {
		t.Errorf("a live process's lease was dropped")
	}
	os.WriteFile(filepath.Join(dir, FileName("junk")), []byte(`{"next":12`), 0o644)
	if _, w, err := g.TryAcquire("junk", 0); err != nil || w != 0 {
		t.Errorf("a torn record blocks the host (wait %v, %v)", w, err)
	}
}

// A receive from wake makes a waiting Acquire look again at once, instead
// of at its next poll: a request of the caller's own has ended.
func TestAcquireWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := open(t, t.TempDir(), Options{Conns: 1})
		busy, err := g.Acquire(context.Background(), "h", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		wake := make(chan struct{})
		got := make(chan time.Time)
		start := time.Now()
		go func() {
			l, err := g.Acquire(context.Background(), "h", 0, wake)
			if err != nil {
				t.Error(err)
			}
			g.Release(l, Outcome{OK: true})
			got <- time.Now()
		}()
		synctest.Wait() // the second Acquire waits for its poll
		g.Release(busy, Outcome{OK: true})
		wake <- struct{}{}
		if waited := (<-got).Sub(start); waited != 0 {
			t.Errorf("Acquire returned %v after the wake, want at once", waited)
		}
	})
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080":  "127.0.0.1_3a8080",
		"[::1]:80":        "_5b_3a_3a1_5d_3a80",
		"example.com":     "example.com",
		"..":              "_..",
		"a/b":             "a_2fb",
		"xn--e1afmkfd.ru": "xn--e1afmkfd.ru",
	} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
