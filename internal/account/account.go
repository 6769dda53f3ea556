// Package account says, per host, what the spiders of a list can keep and
// what it costs: the host's request budget, what each profile's promise
// costs against it, the estimated share of the mirror that is current, the
// age of the copies per level, and from the fetch history the requests
// spent per change caught and how soon announced pages reached the mirror.
// It is pure: a function of the list's lines (streamed, one Add at a
// time, so a list of millions of lines costs a few counters per host and
// level), history records, the profiles, the delays, the answer times
// and the clock. The one exception is series.go, which keeps samples of
// the account over time in a file beside the list; page.go plots them.
//
// The freshness estimate is the one the change model implies: a copy of
// age a whose page changes on average every interval I is still current
// with probability e^(−a/I) (a Poisson process of changes, as in
// internal/change). The interval is read from the line: its due minus
// its last modification (the model's next visit), within the shortest
// profile window and the longest stale bound; the window when the line
// has no model. A hinted line (a hub or a sitemap said the page changed,
// or a hub's change made a listing below it a guess)
// counts as not current, and so does a line with no copy.
package account

import (
	"maps"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
)

// Tally accumulates the lines of a list per host. The zero Tally is not
// usable; see New. It is not safe for concurrent use.
type Tally struct {
	profiles []claim.Profile
	now      time.Time
	lo, hi   time.Duration // bounds of a line's interval
	hosts    map[string]*hostTally
	last     *hostTally // lines come in runs of one host
	lastName string
}

// hostTally is what one host's lines add up to.
type hostTally struct {
	lines   int
	within  []int     // per profile: lines within its level limit
	perHour []float64 // per profile: Σ 1h/claim.Profile.Interval over those lines
	both    float64   // Σ 1h/(the shortest of the profiles' intervals) over all lines
	gone    int       // archived or disallowed: not expected in the mirror
	copies  int
	hinted  int
	current float64       // Σ e^(−age/interval) over copies
	levels  []*ages       // by level, up to maxSliceLevel
	deep    map[int]*ages // deeper levels (rare)
}

// maxSliceLevel bounds the levels kept in a slice: a level is at most
// list.MaxLevel, far too many slots to allocate for a stray deep line.
const maxSliceLevel = 64

// New returns a Tally of the lines of a list as of now, for the profiles
// of the spiders that share it.
func New(profiles []claim.Profile, now time.Time) *Tally {
	t := &Tally{profiles: profiles, now: now, hosts: map[string]*hostTally{}}
	for i, p := range profiles {
		w := p.Window
		if i == 0 || w < t.lo {
			t.lo = w
		}
		t.hi = max(t.hi, p.Window, p.Longest, p.Stale)
	}
	if t.lo <= 0 {
		t.lo = time.Hour
	}
	t.hi = max(t.hi, t.lo)
	return t
}

func (t *Tally) host(url string) *hostTally {
	name := urlkey.Host(url)
	if t.last != nil && name == t.lastName {
		return t.last
	}
	h := t.hosts[name]
	if h == nil {
		name = string([]byte(name)) // the entry's strings are a read buffer
		h = &hostTally{within: make([]int, len(t.profiles)), perHour: make([]float64, len(t.profiles))}
		t.hosts[name] = h
	}
	t.last, t.lastName = h, name
	return h
}

// Add counts one line of the list.
func (t *Tally) Add(e *list.Entry) {
	h := t.host(e.URL)
	h.lines++
	var shortest time.Duration // the line's interval with all profiles' spiders
	for i, p := range t.profiles {
		if p.MaxLevel < 0 || e.Level <= p.MaxLevel {
			h.within[i]++
			if iv := p.Interval(e); iv > 0 {
				h.perHour[i] += float64(time.Hour) / float64(iv)
				if shortest == 0 || iv < shortest {
					shortest = iv
				}
			}
		}
	}
	if shortest > 0 {
		h.both += float64(time.Hour) / float64(shortest)
	}
	if e.State == list.Archived || e.State == list.Disallowed {
		h.gone++ // their time is that of the last check, not of a copy
		return
	}
	if e.File == "" || e.Modified.IsZero() {
		return
	}
	h.copies++
	age := max(t.now.Sub(e.Modified), 0)
	h.level(e.Level).add(age)
	if e.Hinted() {
		h.hinted++
		return
	}
	h.current += math.Exp(-age.Seconds() / t.interval(e).Seconds())
}

func (h *hostTally) level(lv int) *ages {
	if lv >= maxSliceLevel {
		if h.deep == nil {
			h.deep = map[int]*ages{}
		}
		a := h.deep[lv]
		if a == nil {
			a = &ages{}
			h.deep[lv] = a
		}
		return a
	}
	if lv >= len(h.levels) {
		h.levels = append(h.levels, make([]*ages, lv+1-len(h.levels))...)
	}
	if h.levels[lv] == nil {
		h.levels[lv] = &ages{}
	}
	return h.levels[lv]
}

// interval is the line's expected time between changes: its model's next
// visit after its copy, within [lo, hi]; lo without a model.
func (t *Tally) interval(e *list.Entry) time.Duration {
	if e.Due.IsZero() || !e.Due.After(e.Modified) {
		return t.lo
	}
	return min(max(e.Due.Sub(e.Modified), t.lo), t.hi)
}

// Lines is what the lines of one host add up to.
type Lines struct {
	Lines  int   `json:"lines"`
	Within []int `json:"-"` // per profile given to New: lines within its level limit
	// PerHour is, per profile given to New, the visits an hour its
	// revisit intervals ask of those lines (claim.Profile.Interval).
	PerHour []float64 `json:"-"`
	// Together is the visits an hour all the profiles' spiders ask
	// together: each line once per the shortest of their intervals.
	Together float64 `json:"-"`
	Copies   int     `json:"copies"`
	Hinted   int     `json:"hinted"` // copies a hub or sitemap said (or a hub's change guessed) changed since
	// Current is the share of the lines expected in the mirror (all but
	// archived and disallowed ones) whose copy is estimated current.
	Current float64    `json:"current_share"`
	Ages    []LevelAge `json:"ages"` // by level, ascending
}

// LevelAge is the age of the copies of one level.
type LevelAge struct {
	Level     int     `json:"level"`
	Copies    int     `json:"copies"`
	MedianSec float64 `json:"median_s"`
	P90Sec    float64 `json:"p90_s"`
	MaxSec    float64 `json:"max_s"`
}

// Hosts returns the tally of every host, by name.
func (t *Tally) Hosts() map[string]Lines {
	out := make(map[string]Lines, len(t.hosts))
	for name, h := range t.hosts {
		l := Lines{Lines: h.lines, Within: h.within, PerHour: h.perHour, Together: h.both, Copies: h.copies, Hinted: h.hinted, Ages: []LevelAge{}}
		if n := h.lines - h.gone; n > 0 {
			l.Current = h.current / float64(n)
		}
		add := func(lv int, a *ages) {
			if a != nil {
				l.Ages = append(l.Ages, LevelAge{Level: lv, Copies: a.n, MedianSec: a.quantile(0.5).Seconds(),
					P90Sec: a.quantile(0.9).Seconds(), MaxSec: a.max.Seconds()})
			}
		}
		for lv, a := range h.levels {
			add(lv, a)
		}
		for _, lv := range slices.Sorted(maps.Keys(h.deep)) {
			add(lv, h.deep[lv])
		}
		out[name] = l
	}
	return out
}

// ages is a histogram of copy ages in logarithmic buckets, eight per
// doubling (the age in seconds' leading bit and the three after it), so a
// level of millions of copies costs a fixed few kilobytes and a line a
// few instructions; quantiles are read at a bucket's middle (within about
// 6%), the maximum is exact.
type ages struct {
	n       int
	max     time.Duration
	buckets []int32
}

func bucketOf(d time.Duration) int {
	s := uint64(d / time.Second)
	if s == 0 {
		return 0
	}
	e := bits.Len64(s) - 1
	var m uint64
	if e >= 3 {
		m = s >> (e - 3) & 7
	} else {
		m = s << (3 - e) & 7
	}
	return 1 + 8*e + int(m)
}

// bucketMid is the middle of bucket b's ages.
func bucketMid(b int) time.Duration {
	if b == 0 {
		return 0
	}
	e, m := (b-1)/8, (b-1)%8
	lo := math.Ldexp(float64(8+m), e-3)
	return time.Duration(lo * (1 + 1.0/16) * float64(time.Second))
}

func (a *ages) add(d time.Duration) {
	a.n++
	a.max = max(a.max, d)
	b := bucketOf(d)
	if b >= len(a.buckets) {
		a.buckets = append(a.buckets, make([]int32, b+1-len(a.buckets))...)
	}
	a.buckets[b]++
}

// quantile returns the age below which a share q of the copies lie.
func (a *ages) quantile(q float64) time.Duration {
	if a.n == 0 {
		return 0
	}
	rank := max(int(math.Ceil(q*float64(a.n))), 1)
	seen := 0
	for b, c := range a.buckets {
		seen += int(c)
		if seen >= rank {
			return min(bucketMid(b), a.max)
		}
	}
	return a.max
}
