package list

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Add is a newly found link. It is appended if the list holds no line for
// its URL; a line that holds the URL at a deeper level takes the Add's
// level, the link having been found on a shallower page. So a line's level
// is the lowest any Add gave it: the shortest link distance found so far.
// (The lines a page's links added move up with the page only when they are
// added again: when a shallower page links to them too, or when the page
// is fetched and its links found again.)
type Add struct {
	URL   string // canonical
	Level int
	Width int // bytes to reserve for the file field; 0 asks Options.Reserve
	// Hint, if set, says the page changed at or after Hint: a hub
	// announced it, or a sitemap gave it a lastmod. A line whose copy is
	// older than Hint is marked hinted (its due becomes the copy's time:
	// Entry.Hinted), which the claim policy takes as a reason to visit
	// it soon. A hint is never proof: the visit decides.
	Hint time.Time
}

// Result is the outcome of fetching a claimed line.
type Result struct {
	URL      string
	State    State     // Downloaded, Archived, Error or Disallowed; 0 returns the claim unfetched
	File     string    // new copy's path; "" keeps the line's file
	Modified time.Time // new copy's time; zero keeps the line's time
	// Due is when the line is next worth a visit (Entry.Due); recorded
	// with a new Modified, zero when unknown.
	Due time.Time
	// ForHint says the line was hinted when claimed: the visit answers
	// the hint. A line hinted while its claim was out (a hub announced a
	// change the visit may have missed, as it began before the hub's)
	// stays hinted after a result without ForHint, and is visited again:
	// an announcement costs at most one visit more, and is never lost.
	ForHint bool
}

// Cycle is one locked pass: append new links, record results, take back
// dead spiders' claims, claim a batch. Fill in the inputs, call List.Run.
type Cycle struct {
	Spider     string          // the id of the spider running the pass
	Now        time.Time       // the pass's clock; zero means time.Now()
	Started    time.Time       // when the spider started, for its status
	Lease      time.Duration   // this spider's lease, published with its heartbeat; also used for claimants that published none; 0 = never
	Add        []Add           // links found since the last pass
	Results    []Result        // results of claims held by Spider
	ReleaseOwn bool            // take back every other claim held by Spider: first and last pass
	Pick       Picker          // nil claims nothing
	Extra      json.RawMessage // published in the spider's status

	Claimed []Entry    // output: the lines claimed, as they were before the claim
	Stats   CycleStats // output
	// HintedClaims is an output: the URLs of the lines Spider held
	// before the pass's claim and still holds after it that are hinted
	// (Entry.Hinted), in list order. Another spider's hint may have
	// marked them after Spider claimed them: a visit not yet begun
	// answers the hint, and may go before Spider's other claims.
	HintedClaims []string

	noStatus bool // a pass of no spider (Add): publish no status
	rewrite  bool // rewrite the whole file even if everything fits (Compact)
}

// Compact rewrites the whole list in one pass, restoring every line's
// padding (after hand edits, say); the list keeps its lines and their
// order. It is what a pass does when an update does not fit in place.
func (l *List) Compact(ctx context.Context) (CycleStats, error) {
	c := &Cycle{Spider: "compact", noStatus: true, rewrite: true}
	err := l.Run(ctx, c)
	return c.Stats, err
}

// Add appends the URLs the list does not hold yet and lowers the level of
// those it holds deeper (see the type Add), in one pass, and reports how
// many lines it appended and lowered (Stats.Added, Stats.Lowered). URLs
// must be canonical.
func (l *List) Add(ctx context.Context, adds []Add) (CycleStats, error) {
	c := &Cycle{Spider: "import", Add: adds, noStatus: true}
	err := l.Run(ctx, c)
	return c.Stats, err
}

// CycleStats describe one pass; they are published in the spider's status.
type CycleStats struct {
	At        time.Time `json:"at"`
	Lines     int       `json:"lines"`      // entries in the list after the pass
	Bytes     int64     `json:"bytes"`      // size of the list after the pass
	Added     int       `json:"added"`      // new lines appended
	Recorded  int       `json:"recorded"`   // results recorded
	Dropped   int       `json:"dropped"`    // results dropped: the claim had been taken back
	TakenBack int       `json:"taken_back"` // claims of dead or stalled spiders returned
	Due       int       `json:"due"`        // lines due for the picker, claimed or not
	Claimed   int       `json:"claimed"`    // lines claimed
	// FirstElsewhere counts lines never visited that other live spiders
	// hold: their first visits may bring links this spider would take.
	FirstElsewhere int `json:"first_elsewhere"`
	// Unvisited counts lines never visited that no spider holds after
	// the pass: the backlog of a first mirror.
	Unvisited int     `json:"unvisited"`
	Lowered   int     `json:"lowered"` // lines given a lower level by an Add
	Hinted    int     `json:"hinted"`  // lines an Add's Hint marked changed
	WaitSec   float64 `json:"lock_wait_s"`
	HeldSec   float64 `json:"lock_held_s"`
	ScanSec   float64 `json:"scan_s"`     // of the lock held: reading and deciding
	WriteSec  float64 `json:"write_s"`    // of the lock held: journal, writes, fsyncs
	Rewrote   bool    `json:"rewrote"`    // the pass rewrote the whole file
	TornBytes int64   `json:"torn_bytes"` // bytes of a torn last line truncated
}

// Run performs the pass c under the list's lock.
func (l *List) Run(ctx context.Context, c *Cycle) error {
	if !ValidSpiderID(c.Spider) {
		return fmt.Errorf("list: invalid spider id %q", c.Spider)
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	for _, a := range c.Add {
		if a.Level < 0 || a.Level > MaxLevel {
			return fmt.Errorf("list: level %d of %s is outside 0..%d", a.Level, a.URL, MaxLevel)
		}
	}
	c.Claimed, c.HintedClaims, c.Stats = nil, nil, CycleStats{At: c.Now.UTC()}
	t0 := time.Now()
	lk, unlock, err := l.lockList(ctx)
	if err != nil {
		return err
	}
	t1 := time.Now()
	defer func() {
		unlock()
		c.Stats.WaitSec = t1.Sub(t0).Seconds()
		c.Stats.HeldSec = time.Since(t1).Seconds()
	}()
	if err := lk.create(); err != nil {
		return err
	}
	lk.removeTemps()
	if err := lk.pass(c); err != nil {
		return err
	}
	if c.noStatus {
		return nil
	}
	c.Stats.HeldSec = time.Since(t1).Seconds()
	st := &SpiderStatus{Spider: c.Spider, PID: os.Getpid(), Started: c.Started.UTC(), Heartbeat: c.Now.UTC(),
		LeaseSec: c.Lease.Seconds(), LastCycle: c.Stats, Extra: c.Extra}
	if err := writeStatus(l.path, st); err != nil {
		return fmt.Errorf("list: publish status: %w", err)
	}
	return nil
}
