// Package claim decides which lines of the list a spider claims next: pure
// functions of (entries, now, profile), with no I/O and no clock of their
// own, so the policy can be read and tested as tables.
//
// A line is due for a profile when it is unclaimed, within the profile's
// level limit, and has no copy or a copy older than the profile's window.
// A profile with a stale bound also takes any line whose copy is older than
// that bound, whatever its level: this is the slow spider's guarantee that
// every page is refreshed within the bound. Among due lines the stale ones
// come first, then the lowest level, then the oldest copy (no copy counts
// as oldest); the list breaks remaining ties by line order, which is the
// order of discovery.
package claim

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/spider-mirror/spider/list"
)

// Profile is what distinguishes one kind of spider from another. Profiles
// are data: fast and slow are two values of this type.
type Profile struct {
	Name     string
	Window   time.Duration // a copy older than this is due
	MaxLevel int           // lines deeper than this are not claimed (unless stale); -1 = no limit
	Stale    time.Duration // a copy older than this is due at any level, first; 0 = off
	Batch    int           // claim at most this many lines per pass
}

// Due reports whether e may be claimed under p at now.
func Due(p Profile, e *list.Entry, now time.Time) bool {
	b := boundsOf(p, now)
	return b.due(p, e)
}

// Counter counts the lines due under a profile at one instant, fed the
// lines of the list one at a time (as a read pass gives them). It applies
// the rule a Picker applies, so the count is what a spider of that
// profile would find due at that instant, before the spider's own vetoes
// (a Picker's Skip). The zero Counter is not usable; see NewCounter.
type Counter struct {
	p Profile
	b bounds
	n int
}

// NewCounter returns a Counter for profile p at now.
func NewCounter(p Profile, now time.Time) *Counter {
	return &Counter{p: p, b: boundsOf(p, now)}
}

// Add counts e if it is due.
func (c *Counter) Add(e *list.Entry) {
	if c.b.due(c.p, e) {
		c.n++
	}
}

// Due returns how many of the lines added were due.
func (c *Counter) Due() int { return c.n }

// Less reports whether due line a is more urgent than due line b under p.
func Less(p Profile, now time.Time, a, b *list.Entry) bool {
	bs := boundsOf(p, now)
	return bs.less(a, b)
}

// bounds are a profile's thresholds at one instant: a copy modified at or
// before dueBy is due, at or before staleBy is stale. Comparing times is
// cheaper than subtracting them, and a pass compares millions.
type bounds struct {
	dueBy, staleBy time.Time
	hasStale       bool
}

func boundsOf(p Profile, now time.Time) bounds {
	return bounds{dueBy: now.Add(-p.Window), staleBy: now.Add(-p.Stale), hasStale: p.Stale > 0}
}

func (b *bounds) stale(e *list.Entry) bool {
	return b.hasStale && !e.Modified.IsZero() && !e.Modified.After(b.staleBy)
}

func (b *bounds) due(p Profile, e *list.Entry) bool {
	switch {
	case e.Spider != "":
		return false
	case b.stale(e):
		return true
	case p.MaxLevel >= 0 && e.Level > p.MaxLevel:
		return false
	}
	return e.Modified.IsZero() || !e.Modified.After(b.dueBy)
}

func (b *bounds) less(a, c *list.Entry) bool {
	if sa, sc := b.stale(a), b.stale(c); sa != sc {
		return sa
	}
	if a.Level != c.Level {
		return a.Level < c.Level
	}
	if a.Modified.IsZero() || c.Modified.IsZero() {
		return a.Modified.IsZero() && !c.Modified.IsZero()
	}
	return a.Modified.Before(c.Modified)
}

// Picker is a list.Picker for profile p at Now. It is safe for the
// concurrent calls a parallel pass makes. Skip, if set, vetoes lines
// the caller wants to leave alone for now (URLs in retry backoff).
type Picker struct {
	P    Profile
	Now  time.Time
	Want int // claim at most this many (≤ P.Batch); 0 means P.Batch
	Skip func(url string) bool

	next atomic.Int64 // unix nanoseconds; see Next
	once sync.Once
	b    bounds
}

func (k *Picker) bounds() *bounds {
	k.once.Do(func() { k.b = boundsOf(k.P, k.Now) })
	return &k.b
}

// Next returns the earliest time a line that Due saw but found not due
// becomes due, so an idle spider knows how long it may sleep; zero if none.
func (k *Picker) Next() time.Time {
	if n := k.next.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Due implements list.Picker.
func (k *Picker) Due(e *list.Entry) bool {
	if !k.bounds().due(k.P, e) {
		if n := NextDue(k.P, e); !n.IsZero() {
			for v := n.UnixNano(); ; {
				old := k.next.Load()
				if old != 0 && old <= v || k.next.CompareAndSwap(old, v) {
					break
				}
			}
		}
		return false
	}
	return k.Skip == nil || !k.Skip(e.URL)
}

// Less implements list.Picker.
func (k *Picker) Less(a, b *list.Entry) bool { return k.bounds().less(a, b) }

// Max implements list.Picker.
func (k *Picker) Max() int {
	if k.Want > 0 && k.Want < k.P.Batch {
		return k.Want
	}
	return k.P.Batch
}

// NextDue returns when e next becomes due under p, given it is not due at
// now: the earlier of its window and its stale bound expiring. It returns
// the zero time for lines that never become due by age (deeper than the
// level limit with no stale bound, or claimed).
func NextDue(p Profile, e *list.Entry) time.Time {
	if e.Spider != "" || e.Modified.IsZero() {
		return time.Time{}
	}
	var next time.Time
	if p.MaxLevel < 0 || e.Level <= p.MaxLevel {
		next = e.Modified.Add(p.Window)
	}
	if p.Stale > 0 {
		if s := e.Modified.Add(p.Stale); next.IsZero() || s.Before(next) {
			next = s
		}
	}
	return next
}
