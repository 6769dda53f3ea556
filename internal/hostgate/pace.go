package hostgate

import (
	"context"
	"time"
)

// Pace is a store of the hosts' shared pace, as its users see it: Gate,
// on files, and internal/pglist's Gate, in PostgreSQL. internal/gatetest
// is its conformance suite.
type Pace interface {
	TryAcquire(host string, delay time.Duration) (l Lease, wait time.Duration, err error)
	Acquire(ctx context.Context, host string, delay time.Duration, wake <-chan struct{}) (Lease, error)
	Release(l Lease, o Outcome) error
	Report(host string, o Outcome) error
	SetCrawlDelay(host string, d time.Duration) error
	// CrawlDelay is the Crawl-delay published for host, valid at now;
	// 0 if none is.
	CrawlDelay(host string, now time.Time) time.Duration
	Close() error
}

var _ Pace = (*Gate)(nil)

// Record is one host's shared pace state: what a host file holds (as
// JSON, see the package doc) and what any other store of a Gate's state
// keeps (internal/pglist keeps it in PostgreSQL). Times are Unix
// nanoseconds.
type Record struct {
	Next          int64        `json:"next"`
	End           int64        `json:"end,omitempty"` // when the last request ended
	CrawlDelay    int64        `json:"crawl_delay,omitempty"`
	CrawlDelayExp int64        `json:"crawl_delay_exp,omitempty"`
	Strikes       int          `json:"strikes,omitempty"`
	Leases        []LeaseEntry `json:"leases,omitempty"`
}

// LeaseEntry is a request in flight in a Record: its holder (a process
// id in a host file, a session's key in PostgreSQL), the holder's number
// for it, and when it expires.
type LeaseEntry struct {
	Holder int64  `json:"pid"`
	ID     uint64 `json:"id"`
	Exp    int64  `json:"exp"`
}

// Lease is a request in flight to a host, as the Gate that granted it
// names it.
type Lease struct {
	Host string
	ID   uint64
}

// withDefaults returns o with every zero limit replaced by its default.
func (o Options) withDefaults() Options {
	if o.Conns <= 0 {
		o.Conns = 4
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 5 * time.Minute
	}
	if o.MaxSlow <= 0 || o.MaxSlow > MaxSlowDown {
		o.MaxSlow = MaxSlowDown
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Rules are the pacing rules of the package doc, as pure functions of a
// Record, the clock and the caller's arguments, shared by every store of
// the state. The zero value applies the default limits.
type Rules struct{ o Options }

// NewRules returns the rules with o's limits (zero fields: defaults).
func NewRules(o Options) Rules { return Rules{o.withDefaults()} }

// Options returns the limits the rules apply, defaults filled in.
func (ru Rules) Options() Options { return ru.o }

// Prune drops the leases that expired by now or whose holder live says
// is gone, and resets a next implausibly far ahead (a clock stepped back,
// or a garbled time). It reports whether r changed.
func (ru Rules) Prune(r *Record, now int64, live func(holder int64) bool) bool {
	kept := r.Leases[:0]
	for _, e := range r.Leases {
		if e.Exp > now && live(e.Holder) {
			kept = append(kept, e)
		}
	}
	changed := len(kept) != len(r.Leases)
	r.Leases = kept
	if r.Next > now+int64(ru.o.MaxSlow)+int64(MaxCrawlDelay) {
		r.Next = now
		changed = true
	}
	return changed
}

// Take makes one attempt to start a request at now, at least delay after
// the previous one, for holder under its number id. It either takes a
// lease (wait 0, ok) or says how long to wait before trying again.
func (ru Rules) Take(r *Record, now int64, delay time.Duration, holder int64, id uint64) (wait time.Duration, ok bool) {
	d := int64(delay)
	if r.CrawlDelayExp > now && r.CrawlDelay > d {
		d = r.CrawlDelay
	}
	// With a delay, requests to the host never overlap, and each starts
	// at least the delay after the previous one ended; without one, up
	// to Conns run at once.
	switch {
	case d > 0 && len(r.Leases) > 0:
		// It cannot start before the delay after the request in flight
		// ends: sleeping the delay loses nothing, and the next try waits
		// for the rest exactly (a poll would start it up to a poll late,
		// at every request).
		return time.Duration(d), false
	case len(r.Leases) >= ru.o.Conns:
		return clampDur(time.Duration(d)/4, 5*time.Millisecond, 100*time.Millisecond), false
	}
	if ready := max(r.Next, r.End+d); ready > now {
		return time.Duration(ready - now), false
	}
	r.Leases = append(r.Leases, LeaseEntry{Holder: holder, ID: id, Exp: now + int64(ru.o.LeaseTTL)})
	r.Next = now + d
	return 0, true
}

// Release drops holder's lease id from r and applies the request's
// outcome at now.
func (ru Rules) Release(r *Record, now int64, holder int64, id uint64, o Outcome) {
	for i, e := range r.Leases {
		if e.Holder == holder && e.ID == id {
			r.Leases = append(r.Leases[:i], r.Leases[i+1:]...)
			break
		}
	}
	ru.Apply(r, now, o)
}

// Apply records a request's end at now and its outcome in r.
func (ru Rules) Apply(r *Record, now int64, o Outcome) {
	r.End = now
	switch {
	case o.Throttled:
		d := o.RetryAfter
		if d <= 0 {
			base := o.Base
			if base <= 0 {
				base = time.Second
			}
			d = base << min(r.Strikes, 20)
		}
		d = min(d, ru.o.MaxSlow)
		r.Strikes++
		r.Next = max(r.Next, now+int64(d))
	case o.OK:
		r.Strikes = 0
	}
}

// SetCrawlDelay publishes a Crawl-delay d in r for 24 hours from now. It
// reports whether r changed: the same delay, published less than 23
// hours ago, is left alone.
func (ru Rules) SetCrawlDelay(r *Record, now int64, d time.Duration) bool {
	if r.CrawlDelay == int64(d) && r.CrawlDelayExp > now+int64(time.Hour) {
		return false
	}
	r.CrawlDelay, r.CrawlDelayExp = int64(d), now+int64(24*time.Hour)
	return true
}

// CrawlDelayAt returns the Crawl-delay r holds if it is still valid at
// now, and 0 if none is.
func (r *Record) CrawlDelayAt(now time.Time) time.Duration {
	if r.CrawlDelayExp <= now.UnixNano() {
		return 0
	}
	return min(max(time.Duration(r.CrawlDelay), 0), MaxCrawlDelay)
}

// AcquireWith calls try until it grants a lease or fails, sleeping the
// wait it asks for in between, or until ctx ends. A receive from wake
// (nil: none) cuts a wait short. It is Gate.Acquire for any store whose
// TryAcquire is try.
func AcquireWith(ctx context.Context, wake <-chan struct{}, try func() (Lease, time.Duration, error)) (Lease, error) {
	for {
		l, wait, err := try()
		if err != nil || wait <= 0 {
			return l, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Lease{}, ctx.Err()
		case <-wake:
			t.Stop()
		case <-t.C:
		}
	}
}

func clampDur(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }
