// Package listtest is the conformance suite of the list stores: one set of
// tests that the file store (list) and the PostgreSQL store
// (internal/pglist) both pass, so that a spider sees the same list through
// either. It follows restic's backend tests: a store package calls Run
// from its own tests with a Backend that makes empty lists of its kind.
package listtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// Store is what the suite needs of a store: passes, heartbeats between
// passes, and reads. *list.List and *pglist.Store satisfy it.
type Store interface {
	Run(ctx context.Context, c *list.Cycle) error
	Beat(ctx context.Context, id string, now time.Time) error
	Scan(ctx context.Context, fn func(e *list.Entry) error) error
}

// Backend makes lists of one kind for the suite.
type Backend struct {
	// New makes an empty list for the test t and returns a function that
	// opens a handle on it, as a spider process would; New and open
	// arrange with t.Cleanup to close what they open and to remove the
	// list at the end.
	New func(t *testing.T) (open func(t *testing.T) Store)
	// Lock takes the lock spider id holds for its whole life, through the
	// handle s (the handle then runs the spider's passes), and returns
	// the function that releases it, as a spider's death does. It returns
	// list.ErrRunning if the spider is locked already.
	Lock func(t *testing.T, s Store, id string) (unlock func(), err error)
}

// Run runs the suite against b.
func Run(t *testing.T, b Backend) {
	cases := []struct {
		name string
		f    func(*testing.T, Backend)
	}{
		{"AppendDedupe", testAppendDedupe},
		{"LevelLowering", testLevelLowering},
		{"Hints", testHints},
		{"HintWhileOut", testHintWhileOut},
		{"HintedClaims", testHintedClaims},
		{"ClaimOrder", testClaimOrder},
		{"ClaimLimits", testClaimLimits},
		{"IdleNext", testIdleNext},
		{"Record", testRecord},
		{"ReleaseOwn", testReleaseOwn},
		{"TakebackDead", testTakebackDead},
		{"TakebackStalled", testTakebackStalled},
		{"Fencing", testFencing},
		{"SecondLockRefused", testSecondLock},
		{"ConcurrentClaimers", testConcurrentClaimers},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.f(t, b) })
	}
}

// t0 is the suite's clock origin: whole seconds, UTC, as the list keeps.
var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// everything is a profile that finds every line with no copy due, at any
// level: the suite claims lines with it to give them results.
var everything = claim.Profile{Name: "all", Window: 24 * time.Hour, MaxLevel: -1, Batch: 1000}

// spider is a handle of the test's list through which one spider runs.
type spider struct {
	t      *testing.T
	s      Store
	id     string
	unlock func()
}

// join opens a handle on the list and locks spider id through it.
func join(t *testing.T, b Backend, open func(*testing.T) Store, id string) *spider {
	t.Helper()
	s := open(t)
	unlock, err := b.Lock(t, s, id)
	if err != nil {
		t.Fatalf("lock spider %s: %v", id, err)
	}
	return &spider{t: t, s: s, id: id, unlock: unlock}
}

// run runs a pass of the spider and fails the test on an error.
func (sp *spider) run(c *list.Cycle) *list.Cycle {
	sp.t.Helper()
	c.Spider = sp.id
	if err := sp.s.Run(context.Background(), c); err != nil {
		sp.t.Fatalf("pass of %s: %v", sp.id, err)
	}
	return c
}

// claim runs a pass at now claiming up to n lines under profile p.
func (sp *spider) claim(now time.Time, p claim.Profile, n int) []string {
	sp.t.Helper()
	c := sp.run(&list.Cycle{Now: now, Pick: &claim.Picker{P: p, Now: now, Want: n}})
	return urls(c.Claimed)
}

func urls(es []list.Entry) []string {
	var u []string
	for _, e := range es {
		u = append(u, e.URL)
	}
	return u
}

// scan returns the list's entries in order.
func scan(t *testing.T, s Store) []list.Entry {
	t.Helper()
	var es []list.Entry
	err := s.Scan(context.Background(), func(e *list.Entry) error {
		es = append(es, e.Clone())
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return es
}

// byURL returns the list's entries by URL.
func byURL(t *testing.T, s Store) map[string]list.Entry {
	t.Helper()
	m := map[string]list.Entry{}
	for _, e := range scan(t, s) {
		if _, dup := m[e.URL]; dup {
			t.Fatalf("two lines for %s", e.URL)
		}
		m[e.URL] = e
	}
	return m
}

// line is a line the suite sets up: a URL found at level, at found; with
// a result if res.State is set (recorded at res.Modified).
type line struct {
	url   string
	level int
	found time.Time
	res   list.Result
}

// seed puts the lines in the list through sp, in order: each is appended
// by a pass at its found time, then those with a result are claimed and
// recorded.
func seed(sp *spider, lines []line) {
	sp.t.Helper()
	for _, l := range lines {
		sp.run(&list.Cycle{Now: l.found, Add: []list.Add{{URL: l.url, Level: l.level}}})
	}
	var res []list.Result
	for _, l := range lines {
		if l.res.State != 0 {
			r := l.res
			r.URL = l.url
			res = append(res, r)
		}
	}
	if len(res) == 0 {
		return
	}
	now := at(-1000 * time.Hour)
	got := sp.claim(now, everything, 1000)
	if len(got) != len(lines) {
		sp.t.Fatalf("seed: claimed %d of %d lines", len(got), len(lines))
	}
	c := sp.run(&list.Cycle{Now: now, Results: res})
	if c.Stats.Recorded != len(res) {
		sp.t.Fatalf("seed: recorded %d of %d results", c.Stats.Recorded, len(res))
	}
	var back []list.Result
	for _, l := range lines {
		if l.res.State == 0 {
			back = append(back, list.Result{URL: l.url})
		}
	}
	sp.run(&list.Cycle{Now: now, Results: back})
}

func u(path string) string { return "http://127.0.0.1/" + path }

func equalStrings(a, b []string) bool {
	return fmt.Sprint(a) == fmt.Sprint(b) && len(a) == len(b)
}
