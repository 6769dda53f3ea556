// Package hostgate spaces the requests that every spider process sharing
// one list makes to each host, so a host's minimum delay, Crawl-delay,
// slow-down after 429/503 and connection cap hold for the sum of all the
// processes, not for each.
//
// # Shared state
//
// The state lives in a directory beside the list (LIST.hosts.d), one small
// file per host, named after the host ("127.0.0.1_3a8080" for
// 127.0.0.1:8080). A file holds one JSON record:
//
//	{"next":N,"end":E,"crawl_delay":D,"crawl_delay_exp":X,"strikes":S,"leases":[{"pid":P,"id":I,"exp":T}]}
//
// with times in Unix nanoseconds:
//
//   - next: the earliest time the next request may start. Taking a slot
//     sets it to now + delay; a 429 or 503 pushes it further out
//     (Retry-After, or a back-off doubling with each strike), never more
//     than Options.MaxSlow (at most MaxSlowDown, 1 h) ahead.
//   - end: when the last request ended.
//   - crawl_delay: the Crawl-delay a process read from the host's
//     robots.txt, valid until crawl_delay_exp (24 h after it was
//     published), so a process that has not fetched robots.txt yet
//     honours it too. The delay applied is the larger of it and the
//     caller's.
//   - strikes: 429/503 answers in a row; any other answer clears it.
//   - leases: the requests in flight. A lease names its process and
//     expires after Options.LeaseTTL; a lease whose process is gone
//     (kill(pid, 0) says ESRCH) or whose time is up is dropped by the next
//     reader, so a killed spider's connections do not leak.
//
// # Protocol
//
// Every read-modify-write of a host's record holds flock(2) on that file.
// The file is written in place with one pwrite (padded with spaces to its
// old length) and never renamed, so the lock is always on the live inode.
// The lock is held only to read, decide and write, never while sleeping
// or fetching.
//
// To fetch, a worker calls Acquire, which tries under the lock: if the
// host has a delay and a request in flight, or Conns requests in flight,
// or it is before max(next, end + delay), it gets back how long to wait,
// sleeps without the lock and tries again; otherwise it takes a lease, sets
// next = now + delay and goes. When the fetch ends it calls Release, which
// drops the lease, sets end = now and applies a slow-down.
//
// So with a delay, requests to a host by all processes together never
// overlap and each starts at least the delay after the previous one ended
// (wget's --wait, and a guarantee the server's own log can check: the
// previous request had arrived before it ended). With no delay, up to
// Conns run at once. Retry-After and Crawl-delay bind every process.
//
// Writes are not fsynced: the record is advisory timing state. After a
// crash a torn or garbled record reads as empty (the next request goes at
// once). Times are the machine's wall clock, shared by all processes; a
// next more than MaxSlow + 2 minutes ahead (a clock stepped back) is
// reset.
//
// The rules are pure functions of a Record (pace.go: Rules), apart from
// the file mechanism, so that another store of the same state applies
// them unchanged: internal/pglist keeps the records in PostgreSQL for
// spiders on several machines, with leases held by database sessions
// instead of processes. Both satisfy Pace and pass internal/gatetest.
//
// A Gate is safe for concurrent use. Within a process, updates are
// serialised by a mutex in front of the file lock (flock belongs to the
// open file, not to the goroutine). Unix only (flock, kill).
package hostgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MaxSlowDown bounds how far a 429 or 503 can push a host's next request.
const MaxSlowDown = time.Hour

// Options are a Gate's limits. Zero fields take the defaults.
type Options struct {
	Conns    int              // requests in flight to one host, all processes together; default 4
	LeaseTTL time.Duration    // a lease older than this is dropped; default 5m (must outlast one fetch)
	MaxSlow  time.Duration    // cap on a slow-down; default and maximum MaxSlowDown
	Now      func() time.Time // the clock; nil = time.Now
}

// Gate is the shared politeness state of one list.
type Gate struct {
	dir   string
	rules Rules
	pid   int

	mu    sync.Mutex // guards files, id, and every read-modify-write
	files map[string]*os.File
	id    uint64
}

// Open returns the Gate whose state lives in dir, creating dir.
func Open(dir string, o Options) (*Gate, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("hostgate: %w", err)
	}
	// Lease ids start at a random point so that two Gates of one process
	// (tests) never mistake each other's leases for their own.
	return &Gate{dir: dir, rules: NewRules(o), pid: os.Getpid(), files: map[string]*os.File{}, id: rand.Uint64() >> 1}, nil
}

// Close closes the host files. Leases still held are dropped by whoever
// reads their records next, once this process has exited.
func (g *Gate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var err error
	for h, f := range g.files {
		err = errors.Join(err, f.Close())
		delete(g.files, h)
	}
	return err
}

// TryAcquire makes one attempt to start a request to host, at least delay
// after the previous one. It returns a lease, or the time to wait before
// trying again.
func (g *Gate) TryAcquire(host string, delay time.Duration) (l Lease, wait time.Duration, err error) {
	err = g.update(host, func(r *Record, now int64) bool {
		var ok bool
		if wait, ok = g.rules.Take(r, now, delay, int64(g.pid), g.id+1); ok {
			g.id++
			l = Lease{Host: host, ID: g.id}
		}
		return ok
	})
	return l, wait, err
}

// Acquire waits until a request to host may start (see TryAcquire), or ctx
// ends. A receive from wake (nil: none) cuts a wait short: the caller
// releases leases of its own there, which the gate would otherwise notice
// only when it polls again.
func (g *Gate) Acquire(ctx context.Context, host string, delay time.Duration, wake <-chan struct{}) (Lease, error) {
	return AcquireWith(ctx, wake, func() (Lease, time.Duration, error) { return g.TryAcquire(host, delay) })
}

// Outcome is how a request ended, as far as the host's pace is concerned.
type Outcome struct {
	OK         bool          // a 2xx, 3xx or 4xx answer: clears the strikes
	Throttled  bool          // 429 or 503: slow the host down
	RetryAfter time.Duration // the server's Retry-After; 0 = none (back off by strikes)
	Base       time.Duration // first back-off step without Retry-After; 0 = 1s
}

// Release ends the request of l and applies its outcome to the host.
func (g *Gate) Release(l Lease, o Outcome) error {
	return g.update(l.Host, func(r *Record, now int64) bool {
		g.rules.Release(r, now, int64(g.pid), l.ID, o)
		return true
	})
}

// Report applies the outcome of a request to host made without a lease
// (a host its caller does not pace) as Release would: its end time, and
// any slow-down, which binds every process from then on.
func (g *Gate) Report(host string, o Outcome) error {
	return g.update(host, func(r *Record, now int64) bool {
		g.rules.Apply(r, now, o)
		return true
	})
}

// SetCrawlDelay publishes host's Crawl-delay for 24 hours, so every
// process spaces its requests by at least d.
func (g *Gate) SetCrawlDelay(host string, d time.Duration) error {
	return g.update(host, func(r *Record, now int64) bool {
		return g.rules.SetCrawlDelay(r, now, d)
	})
}

// CrawlDelay returns the Crawl-delay published for host, valid at now; 0
// if none is (the package's CrawlDelay on the Gate's directory).
func (g *Gate) CrawlDelay(host string, now time.Time) time.Duration {
	return CrawlDelay(g.dir, host, now)
}

// update runs f on host's record under the locks; f reports whether to
// write the record back.
func (g *Gate) update(host string, f func(r *Record, now int64) bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	fh, err := g.file(host)
	if err != nil {
		return err
	}
	fd := int(fh.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("hostgate: lock %s: %w", fh.Name(), err)
	}
	defer syscall.Flock(fd, syscall.LOCK_UN)

	var buf [8 << 10]byte
	n, err := fh.ReadAt(buf[:], 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("hostgate: read %s: %w", fh.Name(), err)
	}
	var r Record
	if n > 0 && json.Unmarshal(buf[:n], &r) != nil {
		r = Record{} // torn or garbled: start afresh
	}
	now := g.rules.o.Now().UnixNano()
	dropped := g.rules.Prune(&r, now, func(pid int64) bool { return pid == int64(g.pid) || alive(pid) })
	if !f(&r, now) && !dropped {
		return nil
	}
	b, err := json.Marshal(&r)
	if err != nil {
		return err
	}
	// Pad with spaces to the old length rather than truncate: JSON ignores
	// them, and a same-size pwrite is one cheap syscall.
	for len(b) < n {
		b = append(b, ' ')
	}
	if _, err := fh.WriteAt(b, 0); err != nil {
		return fmt.Errorf("hostgate: write %s: %w", fh.Name(), err)
	}
	return nil
}

// MaxCrawlDelay bounds a published Crawl-delay (robots.MaxCrawlDelay).
const MaxCrawlDelay = 2 * time.Minute

// maxOpen caps the host files kept open.
const maxOpen = 256

func (g *Gate) file(host string) (*os.File, error) {
	if f := g.files[host]; f != nil {
		return f, nil
	}
	if len(g.files) >= maxOpen {
		for h, f := range g.files {
			f.Close()
			delete(g.files, h)
			break
		}
	}
	f, err := os.OpenFile(filepath.Join(g.dir, FileName(host)), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("hostgate: %w", err)
	}
	g.files[host] = f
	return f, nil
}

// FileName returns the name of host's file: the host with every byte
// outside [a-z0-9.-] written as "_" and two hex digits.
func FileName(host string) string {
	var b strings.Builder
	for i := 0; i < len(host); i++ {
		c := host[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "_%02x", c)
	}
	s := b.String()
	if s == "" || s == "." || s == ".." {
		s = "_" + s
	}
	return s
}

// alive reports whether process pid may still be running.
func alive(pid int64) bool {
	if pid <= 0 || pid != int64(int(pid)) {
		return false
	}
	err := syscall.Kill(int(pid), 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
