// Package claim decides which lines of the list a spider claims next: pure
// functions of (entries, now, profile), with no I/O and no clock of their
// own, so the policy can be read and tested as tables.
//
// A line is due for a profile when it is unclaimed, within the profile's
// level limit, and one of:
//
//   - it has no copy (it was never visited): a first mirror is never
//     starved;
//   - its copy is as old as its revisit interval: the change model's
//     (the line's due time, internal/change) bounded by the profile's
//     Shortest (by default its Window) below and its Longest above; the
//     Window when the line has no model; a start page's model is bounded
//     by Longest only: the crawl polls it sooner than Shortest when its
//     list of announcements moves faster (change.PollAfter);
//   - it is hinted: a hub or a sitemap said the page changed after its
//     copy was taken (list.Entry.Hinted). A hint is evidence, not a
//     guess, so the line is due at once, whatever its copy's age; the
//     list marks a copy only if it is older than the hint (or the hint
//     came while a visit was out: list.Result.ForHint), so a page costs
//     at most two visits per hint, and a hub, revisited at most every
//     Shortest (every half of it when refreshing early), hints a page at
//     most once a visit. With Shortest half the fast window (the
//     spiders' default) an announced page reaches the mirror within a
//     window of its announcement.
//
// A profile with a stale bound also takes, whatever its level, any line
// whose copy is older than the bound, or that has waited longer than the
// bound for its first visit: this is the guarantee that every page is
// visited within the bound, as far as the budget allows (the order below
// says what yields when it does not).
//
// A spider with a polite budget to spend (Picker.Early: internal/crawl
// sets it for the spider whose profile has no level limit) also takes
// copies from half their revisit interval on, after every line due by the
// rules above, so the requests the due lines leave unspent go to the
// copies most likely to have changed instead of idling. A spider with no delay
// (Picker.Unpaced) does the same and takes every page by Shortest too,
// from a point drawn per page and copy between half of Shortest and
// Shortest (UnpacedWait): then Shortest, not a delay, bounds its requests.
//
// Among due lines the lines that waited longer than the stale bound for
// their first visit come first (the longest waiting first), then the
// other lines with no copy, the hinted ones and the start pages (HTML
// pages at level 0, not their images or style sheets) due at their
// revisit interval (lowest level, then longest waiting),
// then the copies older than the stale bound (oldest first), then the
// other refreshes due at their revisit interval, then the early ones;
// each kind of refresh by the chance the page changed since its copy (its
// age over the model's mean time between changes, unclamped: the expected
// freshness a request buys), then the lowest level and the oldest copy;
// the list breaks remaining ties by line order, which is the order of
// discovery. A first visit goes before a stale copy because it makes a
// page current for sure where a refresh may find the copy unchanged: when
// the budget cannot cover the stale bound, the first mirror still
// completes at the budget's rate, and the old copies wait (a missing page
// is worse than an old copy).
package claim

import (
	"path"
	"strings"
	"time"

	"github.com/spider-mirror/spider/list"
)

// Profile is what distinguishes one kind of spider from another. Profiles
// are data: fast and slow are two values of this type.
type Profile struct {
	Name string
	// Window is the shortest revisit interval: a copy younger than this
	// is not due unless hinted; a copy with no change model is due at
	// this age.
	Window time.Duration
	// Longest is the longest revisit interval within the level limit,
	// however rarely the page changes; 0 means Window (no model).
	Longest time.Duration
	// Shortest is the shortest revisit interval of a page whose model
	// says it changes more often than the Window; 0 means Window.
	Shortest time.Duration
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

// bounds are a profile's thresholds at one instant: a line visited or
// found at or before staleBy is stale. Comparing times is cheaper than
// subtracting them, and a pass compares millions.
type bounds struct {
	now, staleBy              time.Time
	window, shortest, longest time.Duration
	maxLevel                  int // Profile.MaxLevel
	hasStale                  bool
	backlog                   bool // see Picker.Backlog
	early                     bool // see Picker.Early
	unpaced                   bool // see Picker.Unpaced
}

// Intervals returns the bounds of p's revisit intervals: a line with a
// model is revisited after its model's interval clamped to [shortest,
// longest], one without after window. A hinted one is due at once, and
// costs a visit per shortest at most: its hub, polled every shortest at
// most, hints it at most once a poll. shortest ≤ window ≤ longest.
func (p Profile) Intervals() (shortest, window, longest time.Duration) {
	longest = max(p.Longest, p.Window)
	if p.Stale > 0 {
		longest = min(longest, max(p.Stale, p.Window))
	}
	shortest = p.Window
	if p.Shortest > 0 {
		shortest = min(p.Shortest, p.Window)
	}
	return shortest, p.Window, longest
}

// Interval returns the revisit interval p gives line e: for a copy, its
// model's interval within [shortest, longest] (so a hub's is shortest, a
// page seen not to change longest), shortest if it is hinted, the window
// without a model; for a line never visited, which is due at once, the
// window. Once per Interval is what keeping e costs p's spider.
func (p Profile) Interval(e *list.Entry) time.Duration {
	if e.Modified.IsZero() {
		return p.Window
	}
	b := boundsOf(p, time.Time{})
	return b.interval(e)
}

func boundsOf(p Profile, now time.Time) bounds {
	shortest, _, longest := p.Intervals()
	return bounds{now: now, staleBy: now.Add(-p.Stale), window: p.Window, shortest: shortest, longest: longest,
		maxLevel: p.MaxLevel, hasStale: p.Stale > 0}
}

// since is when the line last had news: its last visit, or when it was
// found if it was never visited; zero if unknown (found before the list
// recorded it), which counts as long ago.
func since(e *list.Entry) time.Time {
	if e.Modified.IsZero() {
		return e.Due
	}
	return e.Modified
}

func (b *bounds) stale(e *list.Entry) bool {
	if !b.hasStale {
		return false
	}
	s := since(e)
	return !s.IsZero() && !s.After(b.staleBy)
}

// interval is the revisit interval of a line with a copy: its model's,
// within [shortest, longest]; a start page's may be shorter than shortest.
func (b *bounds) interval(e *list.Entry) time.Duration {
	switch {
	case e.Due.IsZero(): // no model
		return b.window
	case !e.Due.After(e.Modified): // hinted: due at once (wait), a visit per shortest at most (Interval)
		return b.shortest
	}
	return min(max(e.Due.Sub(e.Modified), b.floor(e)), b.longest)
}

// floor is the shortest revisit interval of a line with a model: shortest,
// but none for a start page, whose list of announcements may move faster:
// the crawl sets its due sooner then, no sooner than its request rate
// allows (internal/crawl, change.PollAfter).
func (b *bounds) floor(e *list.Entry) time.Duration {
	if startPage(e) {
		return 0
	}
	return b.shortest
}

func (b *bounds) due(p Profile, e *list.Entry) bool {
	switch {
	case e.Spider != "":
		return false
	case b.stale(e):
		return true
	case p.MaxLevel >= 0 && e.Level > p.MaxLevel:
		return false
	case e.Modified.IsZero():
		return true
	case b.backlog && !startPage(e) && !e.Hinted():
		return false // first visits before refreshes: see Picker.Backlog
	}
	if b.drawn(e) {
		// Only a copy between the least and the most the draw can be
		// needs it here (an MD5 per line would slow a pass at
		// millions); Picker.Due spares it for Next where it can.
		switch age := b.now.Sub(e.Modified); {
		case age >= b.shortest || age >= b.earlyWait(e):
			return true
		case age < leastDrawn(b.shortest):
			return false
		}
	}
	return !b.now.Before(e.Modified.Add(b.wait(e)))
}

// EarlyOdds is how far into its revisit interval a copy may be refreshed
// early (Picker.Early): from half of it on, so early refreshes at most
// double the requests a page costs.
const EarlyOdds = 0.5

// wait is how long after its copy a line with a copy becomes due: at once
// if it is hinted. While first visits wait (backlog) the budget has
// nothing to spare.
func (b *bounds) wait(e *list.Entry) time.Duration {
	switch {
	case e.Hinted():
		return 0
	case b.backlog:
	case b.drawn(e):
		return min(b.earlyWait(e), UnpacedWait(e.URL, e.Modified, b.shortest))
	case b.early || b.unpaced:
		return b.earlyWait(e)
	}
	return b.interval(e)
}

// otherFile reports whether the line's copy is not an HTML page: its
// file does not end in .html or .htm, as the mirror names every page
// (internal/linkname.IsPageName). Such a copy (an image, a style sheet, a
// document) is refreshed by its model even with no delay (Picker.Unpaced).
func otherFile(e *list.Entry) bool {
	if e.File == "" {
		return false
	}
	ext := strings.ToLower(path.Ext(e.File))
	return ext != ".html" && ext != ".htm"
}

// startPage reports whether the line is a start page, where a site
// announces: an HTML page at level 0. A start page's images and style
// sheets are at level 1, but lists written by earlier versions hold them
// at level 0, where they announce nothing: a MediaWiki's Main Page has
// about twenty, which a first mirror's budget refreshed as if each were
// the Main Page.
func startPage(e *list.Entry) bool { return e.Level == 0 && !otherFile(e) }

// earlyWait is how long after its copy a line is due early: EarlyOdds of
// its revisit interval, but no sooner than EarlyOdds of shortest unless
// the interval is. Only a start page's can be under shortest: the crawl
// polls it sooner, no sooner than the host's pace and the list's
// one-second resolution allow, which halving must not undo.
func (b *bounds) earlyWait(e *list.Entry) time.Duration {
	iv := b.interval(e)
	return min(iv, max(time.Duration(float64(iv)*EarlyOdds), time.Duration(float64(b.shortest)*EarlyOdds)))
}

// Classes of due lines, most urgent first.
const (
	classWaited = iota // no copy, and waited longer than the stale bound
	classNew           // no copy, or a hinted one, or a start page due
	classStale         // a copy older than the stale bound
	classRefresh
	classEarly // due only because the spider refreshes early (Picker.Early)
)

func (b *bounds) class(e *list.Entry) int {
	stale := b.stale(e)
	switch {
	case e.Modified.IsZero() && stale:
		return classWaited
	case e.Modified.IsZero():
		return classNew
	case b.maxLevel >= 0 && e.Level > b.maxLevel:
		return classStale // due only as stale
	case e.Hinted():
		return classNew
	}
	atInterval := !b.now.Before(e.Modified.Add(b.interval(e)))
	switch {
	case startPage(e) && atInterval:
		// Where a site announces: its poll must not wait behind a
		// batch of first visits and refreshes, nor its announcements.
		return classNew
	case stale:
		return classStale
	case !atInterval:
		return classEarly
	}
	return classRefresh
}

// byAge reports whether a class orders its lines by age alone, whatever
// their level: the stale bound's classes.
func byAge(class int) bool { return class == classWaited || class == classStale }

// odds is how likely the page changed since its copy: the copy's age over
// the model's own mean time between changes (monotone in the chance
// 1−e^(−age/mean)), not over the revisit interval the profile clamps it
// to. Two copies due at the same Longest are then told apart: the page
// the model expects to change within the window comes before the one it
// expects to change once a month. A line without a model counts its
// window as its mean, a hinted one its shortest.
func (b *bounds) odds(e *list.Entry) float64 {
	mean := b.interval(e)
	if e.Due.After(e.Modified) && !e.Modified.IsZero() {
		mean = max(e.Due.Sub(e.Modified), b.floor(e))
	}
	return float64(b.now.Sub(e.Modified)) / float64(mean)
}

func (b *bounds) less(a, c *list.Entry) bool {
	ka, kc := b.class(a), b.class(c)
	if ka != kc {
		return ka < kc
	}
	if ka == classRefresh || ka == classEarly {
		if oa, oc := b.odds(a), b.odds(c); oa != oc {
			return oa > oc
		}
	}
	if !byAge(ka) && a.Level != c.Level {
		return a.Level < c.Level
	}
	sa, sc := since(a), since(c)
	if sa.IsZero() || sc.IsZero() {
		return sa.IsZero() && !sc.IsZero()
	}
	return sa.Before(sc)
}

// NextDue returns when e next becomes due under p, given it is not due at
// now: the earlier of its revisit interval and its stale bound expiring.
// It returns the zero time for lines that never become due by age (deeper
// than the level limit with no stale bound, or claimed).
func NextDue(p Profile, e *list.Entry) time.Time { return nextDue(p, e, false, false, false) }

// nextDue is NextDue for a picker that refreshes early (or unpaced) or
// not, while first visits wait (backlog) or not. While they wait, a copy
// not a start page nor hinted is due by age only at its stale bound: the
// backlog's end makes it due, which no idle spider's sleep can foresee.
func nextDue(p Profile, e *list.Entry, early, unpaced, backlog bool) time.Time {
	at := since(e)
	if e.Spider != "" || at.IsZero() {
		return time.Time{}
	}
	b := boundsOf(p, at)
	b.early, b.unpaced, b.backlog = early, unpaced, backlog
	var next time.Time
	switch {
	case p.MaxLevel >= 0 && e.Level > p.MaxLevel:
	case e.Modified.IsZero():
		return at // due already
	case backlog && !startPage(e) && !e.Hinted():
	default:
		next = e.Modified.Add(b.wait(e))
	}
	if p.Stale > 0 {
		if s := at.Add(p.Stale); next.IsZero() || s.Before(next) {
			next = s
		}
	}
	return next
}
