package claim

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/spider-mirror/spider/list"
)

// Picker is a list.Picker for profile p at Now. It is safe for the
// concurrent calls a parallel pass makes. Skip, if set, vetoes lines
// the caller wants to leave alone for now (URLs in retry backoff).
type Picker struct {
	P    Profile
	Now  time.Time
	Want int // claim at most this many (≤ P.Batch); 0 means P.Batch
	Skip func(url string) bool
	// Backlog says lines never visited wait, whoever holds them: a first
	// mirror is under way (the caller decides: internal/crawl.noteBacklog).
	// Then a copy is refreshed only if it is a start page (an HTML page
	// at level 0, not its images or style sheets) or a page announced
	// changed (hinted), besides the stale bound: every request goes
	// where it makes a page current for sure, so a first mirror
	// completes at the budget's rate whatever the windows, while the
	// start pages and the announcements keep the new pages coming.
	Backlog bool
	// Early says the spider spends the polite budget (a delay between two
	// requests to a host) that the due lines may leave unspent
	// (internal/crawl sets it for the spider whose profile has no level
	// limit: the spiders of a list share each host's pace). A copy is
	// then due from EarlyOdds of its revisit interval on (a start page
	// polled sooner than shortest: from EarlyOdds of shortest, or at its
	// poll if that is sooner; see earlyWait); Less puts such
	// lines after every line due at its full interval, the ones most
	// likely to have changed first.
	Early bool
	// Unpaced says the spider has no polite delay (its own site): only
	// its speed bounds its requests. A copy is then due as with Early,
	// or, if it is an HTML page, once it has waited its UnpacedWait (a
	// point drawn per page and copy between half of the profile's
	// Shortest and Shortest) if that comes first, ordered as Early's
	// lines: Shortest is the user's price of a page, so a page costs a
	// request per three quarters of Shortest on average (per half of it
	// for a page whose model interval is within twice Shortest: a hub),
	// one per half of it at most, however fast the spider could go, while
	// images, style sheets and other files keep to their model as with
	// Early (a requisite presumes a change per stale bound). It overrides
	// Early, and gives way to Backlog as Early does.
	Unpaced bool

	next atomic.Int64 // unix nanoseconds; see Next
	once sync.Once
	b    bounds
}

func (k *Picker) bounds() *bounds {
	k.once.Do(func() {
		k.b = boundsOf(k.P, k.Now)
		k.b.backlog, k.b.early, k.b.unpaced = k.Backlog, k.Early, k.Unpaced
	})
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
	if b := k.bounds(); !b.due(k.P, e) {
		if n := k.next.Load(); n != 0 && !b.soonest(k.P, e).Before(time.Unix(0, n)) {
			return false // its draw, the costly part of nextDue, would not make Next sooner
		}
		if n := nextDue(k.P, e, k.Early, k.Unpaced, k.Backlog); !n.IsZero() {
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

// Profile returns the profile the picker claims for. With Backlogged and
// the pass's clock it is the whole policy as data, for a store that cannot
// call Due and Less on every line (internal/pglist translates it to SQL,
// then applies Due and Less to the lines it selects).
func (k *Picker) Profile() Profile { return k.P }

// Backlogged reports the picker's Backlog.
func (k *Picker) Backlogged() bool { return k.Backlog }

// RefreshesEarly reports the picker's Early.
func (k *Picker) RefreshesEarly() bool { return k.Early }

// RefreshesUnpaced reports the picker's Unpaced.
func (k *Picker) RefreshesUnpaced() bool { return k.Unpaced }

// Less implements list.Picker.
func (k *Picker) Less(a, b *list.Entry) bool { return k.bounds().less(a, b) }

// Max implements list.Picker.
func (k *Picker) Max() int {
	if k.Want > 0 && k.Want < k.P.Batch {
		return k.Want
	}
	return k.P.Batch
}
