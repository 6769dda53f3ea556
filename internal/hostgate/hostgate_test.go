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

// The connection cap holds across gates; a released lease frees a slot.
func TestConnectionCap(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir, Options{Conns: 2}), open(t, dir, Options{Conns: 2})
	l1, w, err := a.TryAcquire("h", 0)
	if err != nil || w != 0 {
		t.Fatal(w, err)
	}
	if _, w, _ := b.TryAcquire("h", 0); w != 0 {
		t.Fatalf("second connection refused (wait %v)", w)
	}
	if _, w, _ := b.TryAcquire("h", 0); w <= 0 {
		t.Fatalf("third connection granted with a cap of 2")
	}
	if _, w, _ := a.TryAcquire("other", 0); w != 0 {
		t.Fatalf("another host refused (wait %v)", w)
	}
	a.Release(l1, Outcome{OK: true})
	if _, w, _ := b.TryAcquire("h", 0); w != 0 {
		t.Fatalf("no connection after a release (wait %v)", w)
	}
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

// 429/503 push the host's next request out: by Retry-After, else by a
// doubling back-off, never beyond MaxSlow; a success clears the strikes.
func TestSlowDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := open(t, t.TempDir(), Options{MaxSlow: 10 * time.Second})
		step := func(o Outcome) time.Duration {
			l, err := g.Acquire(context.Background(), "h", 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Release(l, o); err != nil {
				t.Fatal(err)
			}
			_, w, _ := g.TryAcquire("h", 0)
			return w
		}
		tests := []struct {
			o    Outcome
			want time.Duration
		}{
			{Outcome{Throttled: true, RetryAfter: 3 * time.Second}, 3 * time.Second},
			{Outcome{Throttled: true}, 2 * time.Second}, // second strike: 1s << 1
			{Outcome{Throttled: true}, 4 * time.Second},
			{Outcome{Throttled: true, RetryAfter: time.Hour}, 10 * time.Second}, // capped
			{Outcome{OK: true}, 0},
			{Outcome{Throttled: true, Base: 500 * time.Millisecond}, 500 * time.Millisecond}, // strikes were cleared
		}
		for i, tt := range tests {
			if got := step(tt.o); got != tt.want {
				t.Errorf("step %d %+v: wait %v, want %v", i, tt.o, got, tt.want)
			}
		}
	})
}

// A Crawl-delay published by one process spaces the requests of another.
func TestCrawlDelayShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		a, b := open(t, dir, Options{}), open(t, dir, Options{})
		if err := a.SetCrawlDelay("h", 1500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		l, _, _ := b.TryAcquire("h", 0)
		b.Release(l, Outcome{OK: true})
		if _, w, _ := b.TryAcquire("h", 0); w != 1500*time.Millisecond {
			t.Errorf("wait %v after a request, want the published Crawl-delay 1.5s", w)
		}
	})
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

func TestAcquireCancelled(t *testing.T) {
	g := open(t, t.TempDir(), Options{})
	g.SetCrawlDelay("h", time.Minute)
	g.Acquire(context.Background(), "h", 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Acquire(ctx, "h", 0, nil); err == nil {
		t.Error("Acquire with a cancelled context returned no error")
	}
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

// BenchmarkReserve measures one request's share of the protocol: a
// TryAcquire and a Release, each a locked read-modify-write of the host's
// file.
func BenchmarkReserve(b *testing.B) {
	g, err := Open(b.TempDir(), Options{Conns: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	for b.Loop() {
		l, w, err := g.TryAcquire("127.0.0.1:8080", 0)
		if err != nil || w != 0 {
			b.Fatal(w, err)
		}
		g.Release(l, Outcome{OK: true})
	}
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// A 429/503 seen by one process holds back every process.
func TestSlowDownShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		a, b := open(t, dir, Options{}), open(t, dir, Options{})
		l, _, _ := a.TryAcquire("h", 0)
		a.Release(l, Outcome{Throttled: true, RetryAfter: 3 * time.Second})
		if _, w, _ := b.TryAcquire("h", 0); w != 3*time.Second {
			t.Errorf("other process waits %v after a Retry-After: 3, want 3s", w)
		}
		// and a request in flight in one process, with a delay, holds the other
		time.Sleep(3 * time.Second)
		l, w, _ := a.TryAcquire("h", time.Second)
		if w != 0 {
			t.Fatalf("wait %v", w)
		}
		if _, w, _ := b.TryAcquire("h", time.Second); w == 0 {
			t.Error("a second request overlapped the first with a delay set")
		}
		a.Release(l, Outcome{OK: true})
		if _, w, _ := b.TryAcquire("h", time.Second); w != time.Second {
			t.Errorf("after the first ended: wait %v, want the full delay 1s", w)
		}
	})
}

// A slow-down reported without a lease (a host its caller does not pace)
// binds every process like one released with a lease, and leaves the
// connection count alone.
func TestReportWithoutLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		a, b := open(t, dir, Options{Conns: 1}), open(t, dir, Options{Conns: 1})
		if err := a.Report("h", Outcome{Throttled: true, RetryAfter: 2 * time.Second}); err != nil {
			t.Fatal(err)
		}
		if _, w, _ := b.TryAcquire("h", 0); w != 2*time.Second {
			t.Errorf("other process waits %v after a reported Retry-After: 2, want 2s", w)
		}
		time.Sleep(2 * time.Second) // virtual time: the slow-down passes
		if _, w, err := b.TryAcquire("h", 0); w != 0 || err != nil {
			t.Errorf("after the slow-down: wait %v, %v; want a lease (the report took no connection)", w, err)
		}
	})
}

func TestCrawlDelayRead(t *testing.T) {
	dir := t.TempDir()
	g, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	now := time.Now()
	if d := CrawlDelay(dir, "h:8080", now); d != 0 {
		t.Errorf("no record: %v", d)
	}
	if err := g.SetCrawlDelay("h:8080", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if d := CrawlDelay(dir, "h:8080", now); d != 5*time.Second {
		t.Errorf("published 5s, read %v", d)
	}
	if d := CrawlDelay(dir, "h:8080", now.Add(25*time.Hour)); d != 0 {
		t.Errorf("expired Crawl-delay read as %v", d)
	}
}
