// Package gatetest is the conformance suite of the stores of the hosts'
// shared pace (internal/hostgate's files, internal/pglist's table): one
// set of cases, run against each store by its own package's tests, as
// restic runs one suite against every backend. The cases run on a fake
// clock (hostgate.Options.Now), so they state the rules exactly.
package gatetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/hostgate"
)

// Gate is one process's view of the shared pace.
type Gate = hostgate.Pace

// New returns a new, empty shared state, and a function that opens a
// Gate on it with the limits o (another process's view of the same
// state), closed when the test ends.
type New func(t *testing.T) (open func(t *testing.T, o hostgate.Options) Gate)

// Clock is a fake clock the cases move by hand.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Run runs every case against the stores newState makes.
func Run(t *testing.T, newState New) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, open func(o hostgate.Options) Gate, clk *Clock)
	}{
		{"Spacing", testSpacing},
		{"ConnectionCap", testConnectionCap},
		{"ExpiredLease", testExpiredLease},
		{"SlowDown", testSlowDown},
		{"SlowDownShared", testSlowDownShared},
		{"ReportWithoutLease", testReportWithoutLease},
		{"CrawlDelayShared", testCrawlDelayShared},
		{"AcquireCancelled", testAcquireCancelled},
		{"ConcurrentCap", testConcurrentCap},
	} {
		t.Run(c.name, func(t *testing.T) {
			open := newState(t)
			clk := &Clock{now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
			c.run(t, func(o hostgate.Options) Gate {
				o.Now = clk.Now
				return open(t, o)
			}, clk)
		})
	}
}

// try is TryAcquire that fails the test on an error.
func try(t *testing.T, g Gate, host string, delay time.Duration) (hostgate.Lease, time.Duration) {
	t.Helper()
	l, w, err := g.TryAcquire(host, delay)
	if err != nil {
		t.Fatal(err)
	}
	return l, w
}

func release(t *testing.T, g Gate, l hostgate.Lease, o hostgate.Outcome) {
	t.Helper()
	if err := g.Release(l, o); err != nil {
		t.Fatal(err)
	}
}

// Requests of two gates (two processes' views of one list) to one host
// never overlap with a delay, and each starts the delay after the
// previous one ended, whoever makes them; the waits they are told are
// exact.
func testSpacing(t *testing.T, open func(hostgate.Options) Gate, clk *Clock) {
	a, b := open(hostgate.Options{Conns: 8}), open(hostgate.Options{Conns: 8})
	const delay, fetch = 200 * time.Millisecond, 30 * time.Millisecond
	var lastEnd time.Time
	for i := range 6 {
		g, other := a, b
		if i%2 == 1 {
			g, other = b, a
		}
		l, w := try(t, g, "h:80", delay)
		if i > 0 && w != delay {
			t.Fatalf("request %d: wait %v, want the delay %v after the previous ended", i, w, delay)
		}
		if w > 0 {
			clk.Add(w)
			if l, w = try(t, g, "h:80", delay); w != 0 {
				t.Fatalf("request %d: wait %v after waiting as told", i, w)
			}
		}
		if i > 0 && clk.Now().Sub(lastEnd) < delay {
			t.Errorf("request %d starts %v after the previous ended, want ≥ %v", i, clk.Now().Sub(lastEnd), delay)
		}
		if _, w := try(t, other, "h:80", delay); w == 0 {
			t.Fatalf("request %d: the other gate overlapped it with a delay set", i)
		}
		clk.Add(fetch)
		release(t, g, l, hostgate.Outcome{OK: true})
		lastEnd = clk.Now()
	}
}

// The connection cap holds across gates; a released lease frees a slot.
func testConnectionCap(t *testing.T, open func(hostgate.Options) Gate, _ *Clock) {
	a, b := open(hostgate.Options{Conns: 2}), open(hostgate.Options{Conns: 2})
	l1, w := try(t, a, "h", 0)
	if w != 0 {
		t.Fatalf("first connection refused (wait %v)", w)
	}
	if _, w := try(t, b, "h", 0); w != 0 {
		t.Fatalf("second connection refused (wait %v)", w)
	}
	if _, w := try(t, b, "h", 0); w <= 0 {
		t.Fatalf("third connection granted with a cap of 2")
	}
	if _, w := try(t, a, "other", 0); w != 0 {
		t.Fatalf("another host refused (wait %v)", w)
	}
	release(t, a, l1, hostgate.Outcome{OK: true})
	if _, w := try(t, b, "h", 0); w != 0 {
		t.Fatalf("no connection after a release (wait %v)", w)
	}
}

// A lease older than LeaseTTL is dropped, even of a live holder: it
// cannot block a host for longer.
func testExpiredLease(t *testing.T, open func(hostgate.Options) Gate, clk *Clock) {
	a, b := open(hostgate.Options{Conns: 1, LeaseTTL: time.Minute}), open(hostgate.Options{Conns: 1, LeaseTTL: time.Minute})
	if _, w := try(t, a, "h", 0); w != 0 {
		t.Fatalf("wait %v", w)
	}
	if _, w := try(t, b, "h", 0); w == 0 {
		t.Fatal("a live lease was dropped")
	}
	clk.Add(time.Minute + time.Second)
	if _, w := try(t, b, "h", 0); w != 0 {
		t.Errorf("an expired lease blocks the host (wait %v)", w)
	}
}

// 429/503 push the host's next request out: by Retry-After, else by a
// doubling back-off, never beyond MaxSlow; a success clears the strikes.
func testSlowDown(t *testing.T, open func(hostgate.Options) Gate, clk *Clock) {
	g := open(hostgate.Options{MaxSlow: 10 * time.Second})
	tests := []struct {
		o    hostgate.Outcome
		want time.Duration
	}{
		{hostgate.Outcome{Throttled: true, RetryAfter: 3 * time.Second}, 3 * time.Second},
		{hostgate.Outcome{Throttled: true}, 2 * time.Second}, // second strike: 1s << 1
		{hostgate.Outcome{Throttled: true}, 4 * time.Second},
		{hostgate.Outcome{Throttled: true, RetryAfter: time.Hour}, 10 * time.Second}, // capped
		{hostgate.Outcome{OK: true}, 0},
		{hostgate.Outcome{Throttled: true, Base: 500 * time.Millisecond}, 500 * time.Millisecond}, // strikes were cleared
	}
	for i, tt := range tests {
		l, w := try(t, g, "h", 0)
		if w > 0 {
			clk.Add(w)
			l, _ = try(t, g, "h", 0)
		}
		release(t, g, l, tt.o)
		if _, got := try(t, g, "h", 0); got != tt.want {
			t.Errorf("step %d %+v: wait %v, want %v", i, tt.o, got, tt.want)
		}
	}
}

// A 429/503 seen by one process holds back every process; with a delay,
// a request in flight in one holds the other.
func testSlowDownShared(t *testing.T, open func(hostgate.Options) Gate, clk *Clock) {
	a, b := open(hostgate.Options{}), open(hostgate.Options{})
	l, _ := try(t, a, "h", 0)
	release(t, a, l, hostgate.Outcome{Throttled: true, RetryAfter: 3 * time.Second})
	if _, w := try(t, b, "h", 0); w != 3*time.Second {
		t.Errorf("other process waits %v after a Retry-After: 3, want 3s", w)
	}
	clk.Add(3 * time.Second)
	l, w := try(t, a, "h", time.Second)
	if w != 0 {
		t.Fatalf("wait %v", w)
	}
	if _, w := try(t, b, "h", time.Second); w == 0 {
		t.Error("a second request overlapped the first with a delay set")
	}
	release(t, a, l, hostgate.Outcome{OK: true})
	if _, w := try(t, b, "h", time.Second); w != time.Second {
		t.Errorf("after the first ended: wait %v, want the full delay 1s", w)
	}
}

// A slow-down reported without a lease binds every process like one
// released with a lease, and leaves the connection count alone.
func testReportWithoutLease(t *testing.T, open func(hostgate.Options) Gate, clk *Clock) {
	a, b := open(hostgate.Options{Conns: 1}), open(hostgate.Options{Conns: 1})
	if err := a.Report("h", hostgate.Outcome{Throttled: true, RetryAfter: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if _, w := try(t, b, "h", 0); w != 2*time.Second {
		t.Errorf("other process waits %v after a reported Retry-After: 2, want 2s", w)
	}
	clk.Add(2 * time.Second)
	if _, w := try(t, b, "h", 0); w != 0 {
		t.Errorf("after the slow-down: wait %v; want a lease (the report took no connection)", w)
	}
}

// A Crawl-delay published by one process spaces the requests of another,
// and reads back until it expires, a day later.
func testCrawlDelayShared(t *testing.T, open func(hostgate.Options) Gate, clk *Clock) {
	a, b := open(hostgate.Options{}), open(hostgate.Options{})
	if d := b.CrawlDelay("h:8080", clk.Now()); d != 0 {
		t.Errorf("no record: Crawl-delay %v", d)
	}
	if err := a.SetCrawlDelay("h:8080", 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	l, _ := try(t, b, "h:8080", 0)
	release(t, b, l, hostgate.Outcome{OK: true})
	if _, w := try(t, b, "h:8080", 0); w != 1500*time.Millisecond {
		t.Errorf("wait %v after a request, want the published Crawl-delay 1.5s", w)
	}
	if d := b.CrawlDelay("h:8080", clk.Now()); d != 1500*time.Millisecond {
		t.Errorf("published 1.5s, read %v", d)
	}
	if d := b.CrawlDelay("h:8080", clk.Now().Add(25*time.Hour)); d != 0 {
		t.Errorf("expired Crawl-delay read as %v", d)
	}
}

func testAcquireCancelled(t *testing.T, open func(hostgate.Options) Gate, _ *Clock) {
	g := open(hostgate.Options{})
	g.SetCrawlDelay("h", time.Minute)
	if _, err := g.Acquire(context.Background(), "h", 0, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Acquire(ctx, "h", 0, nil); err == nil {
		t.Error("Acquire with a cancelled context returned no error")
	}
}

// Workers of two gates hammer one host without a delay: the connection
// cap holds at every moment, and every request gets its turn.
func testConcurrentCap(t *testing.T, open func(hostgate.Options) Gate, _ *Clock) {
	const conns, workers, rounds = 2, 6, 15
	gates := []Gate{open(hostgate.Options{Conns: conns}), open(hostgate.Options{Conns: conns})}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var inFlight, most, done atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		g := gates[w%2]
		wg.Go(func() {
			for range rounds {
				l, err := g.Acquire(ctx, "h", 0, nil)
				if err != nil {
					t.Error(err)
					return
				}
				n := inFlight.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				inFlight.Add(-1)
				if err := g.Release(l, hostgate.Outcome{OK: true}); err != nil {
					t.Error(err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m > conns {
		t.Errorf("%d requests in flight at once, cap %d", m, conns)
	}
	if d := done.Load(); d != workers*rounds {
		t.Errorf("%d requests made, want %d", d, workers*rounds)
	}
}

// Reserve is the benchmark of one request's share of the protocol on g: a
// TryAcquire and a Release, each a locked read-modify-write of the host's
// state in g's store. Each store's package runs it (BenchmarkReserve), so
// the stores compare.
func Reserve(b *testing.B, g Gate) {
	for b.Loop() {
		l, w, err := g.TryAcquire("127.0.0.1:8080", 0)
		if err != nil || w != 0 {
			b.Fatal(w, err)
		}
		if err := g.Release(l, hostgate.Outcome{OK: true}); err != nil {
			b.Fatal(err)
		}
	}
}
