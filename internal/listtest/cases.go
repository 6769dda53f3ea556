package listtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// A URL is appended once, at its shallowest level among a pass's Adds, in
// the order of the Adds that count; a new line is found, unclaimed, due
// when found.
func testAppendDedupe(t *testing.T, b Backend) {
	s := b.New(t)(t)
	now := at(0).Add(500 * time.Millisecond)
	c := &list.Cycle{Spider: "import", Now: now, Add: []list.Add{
		{URL: u("a"), Level: 2}, {URL: u("b"), Level: 1}, {URL: u("a"), Level: 1}, {URL: u("c"), Level: 3}, {URL: u("b"), Level: 4},
	}}
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if c.Stats.Added != 3 || c.Stats.Lines != 3 {
		t.Errorf("added %d, lines %d; want 3, 3", c.Stats.Added, c.Stats.Lines)
	}
	want := []list.Entry{
		{Level: 1, State: list.Found, Due: at(0), URL: u("b")},
		{Level: 1, State: list.Found, Due: at(0), URL: u("a")},
		{Level: 3, State: list.Found, Due: at(0), URL: u("c")},
	}
	got := scan(t, s)
	if len(got) != len(want) {
		t.Fatalf("list holds %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Again, with one new URL: only it is appended, after the others.
	c = &list.Cycle{Spider: "import", Now: at(time.Hour), Add: []list.Add{{URL: u("c"), Level: 3}, {URL: u("d"), Level: 0}, {URL: u("a"), Level: 1}}}
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if c.Stats.Added != 1 || c.Stats.Lines != 4 || c.Stats.Lowered != 0 {
		t.Errorf("stats %+v; want 1 added, 4 lines, none lowered", c.Stats)
	}
	if got := urls(scan(t, s)); !equalStrings(got, []string{u("b"), u("a"), u("c"), u("d")}) {
		t.Errorf("order %v", got)
	}
}

// A line's level only decreases.
func testLevelLowering(t *testing.T, b Backend) {
	s := b.New(t)(t)
	run := func(adds ...list.Add) list.CycleStats {
		c := &list.Cycle{Spider: "import", Now: at(0), Add: adds}
		if err := s.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		return c.Stats
	}
	run(list.Add{URL: u("a"), Level: 5}, list.Add{URL: u("b"), Level: 5})
	st := run(list.Add{URL: u("a"), Level: 2}, list.Add{URL: u("b"), Level: 7}, list.Add{URL: u("a"), Level: 3})
	if st.Lowered != 1 || st.Added != 0 {
		t.Errorf("lowered %d, added %d; want 1, 0", st.Lowered, st.Added)
	}
	m := byURL(t, s)
	if m[u("a")].Level != 2 || m[u("b")].Level != 5 {
		t.Errorf("levels a %d, b %d; want 2, 5", m[u("a")].Level, m[u("b")].Level)
	}
	if err := s.Run(context.Background(), &list.Cycle{Spider: "import", Add: []list.Add{{URL: u("x"), Level: -1}}}); err == nil {
		t.Error("a negative level was accepted")
	}
}

// orderLines are lines of every class claim knows, at t0, under
// slowProfile: a first visit that waited past the stale bound, two stale
// copies, four first visits or hinted, three refreshes, two not due.
var slowProfile = claim.Profile{Name: "slow", Window: 24 * time.Hour, Longest: 7 * 24 * time.Hour, MaxLevel: -1, Stale: 14 * 24 * time.Hour, Batch: 100}

func orderLines() []line {
	dl := func(mod, due time.Duration) list.Result {
		r := list.Result{State: list.Downloaded, File: "f.html", Modified: at(mod)}
		if due != 0 {
			r.Due = at(due)
		}
		return r
	}
	found := at(-40 * 24 * time.Hour)
	return []line{
		{url: u("x1"), level: 0, found: found, res: dl(-time.Hour, 0)},                // not due: a window not passed
		{url: u("r3"), level: 0, found: found, res: dl(-26*time.Hour, 0)},             // refresh, odds 26/24
		{url: u("n1"), level: 2, found: at(-time.Hour)},                               // first visit, level 2
		{url: u("s2"), level: 9, found: found, res: dl(-15*24*time.Hour, 0)},          // stale
		{url: u("r1"), level: 0, found: found, res: dl(-30*time.Hour, 0)},             // refresh, odds 30/24
		{url: u("n2"), level: 1, found: at(-2 * time.Hour)},                           // first visit, level 1
		{url: u("h1"), level: 3, found: found, res: dl(-48*time.Hour, -48*time.Hour)}, // hinted
		{url: u("x2"), level: 1, found: found, res: dl(-48*time.Hour, 24*time.Hour)},  // model: due in a day
		{url: u("n3"), level: 1, found: at(-3 * time.Hour)},                           // first visit, level 1, older
		{url: u("r2"), level: 1, found: found, res: dl(-72*time.Hour, -24*time.Hour)}, // model: interval 2d, odds 1.5
		{url: u("s1"), level: 5, found: found, res: dl(-20*24*time.Hour, 0)},          // stale, older
		{url: u("w1"), level: 7, found: at(-15 * 24 * time.Hour)},                     // first visit, waited past the stale bound
	}
}

// Lines are claimed in claim's order: first visits that waited past the
// stale bound (longest waiting first, any level), then the other first
// visits, hinted copies and start pages due (lowest level, then longest
// waiting), then stale copies (oldest first, any level), then refreshes
// (most likely changed first); at most the batch.
func testClaimOrder(t *testing.T, b Backend) {
	want := []string{u("w1"), u("r1"), u("r3"), u("n3"), u("n2"), u("n1"), u("h1"), u("s1"), u("s2"), u("r2")}
	for _, n := range []int{100, 4} {
		sp := join(t, b, b.New(t), "a")
		seed(sp, orderLines())
		got := sp.claim(t0, slowProfile, n)
		w := want[:min(n, len(want))]
		if !equalStrings(got, w) {
			t.Errorf("batch %d claimed %v\nwant %v", n, got, w)
		}
		m := byURL(t, sp.s)
		for _, url := range got {
			if e := m[url]; e.Spider != "a" {
				t.Errorf("claimed line %s shows spider %q", url, e.Spider)
			}
		}
	}
}

// A level limit keeps deeper lines unless they are stale; a backlog of
// first visits defers refreshes of all but the start pages.
func testClaimLimits(t *testing.T, b Backend) {
	shallow := slowProfile
	shallow.MaxLevel = 1
	cases := []struct {
		name    string
		p       claim.Profile
		backlog bool
		want    []string
	}{
		{"level limit", shallow, false, []string{u("w1"), u("r1"), u("r3"), u("n3"), u("n2"), u("s1"), u("s2"), u("r2")}},
		{"backlog", slowProfile, true, []string{u("w1"), u("r1"), u("r3"), u("n3"), u("n2"), u("n1"), u("h1"), u("s1"), u("s2")}},
	}
	for _, tc := range cases {
		sp := join(t, b, b.New(t), "a")
		seed(sp, orderLines())
		c := sp.run(&list.Cycle{Now: t0, Pick: &claim.Picker{P: tc.p, Now: t0, Backlog: tc.backlog}})
		if got := urls(c.Claimed); !equalStrings(got, tc.want) {
			t.Errorf("%s: claimed %v\nwant %v", tc.name, got, tc.want)
		}
	}
}

// A pass that finds nothing due tells its Picker when the first line
// falls due (claim.Picker.Next), as a Picker that sees every line would
// find: an idle spider sleeps until then, not a poll interval.
func testIdleNext(t *testing.T, b Backend) {
	shallow := slowProfile
	shallow.Name, shallow.MaxLevel = "shallow", 1
	for _, p := range []claim.Profile{slowProfile, shallow} {
		sp := join(t, b, b.New(t), "a")
		seed(sp, orderLines())
		sp.claim(t0, everything, 1000) // the lines with no copy, out of the way
		var want time.Time
		for _, e := range scan(t, sp.s) {
			if n := claim.NextDue(p, &e); !n.IsZero() && (want.IsZero() || n.Before(want)) {
				want = n
			}
		}
		k := &claim.Picker{P: p, Now: t0}
		if c := sp.run(&list.Cycle{Now: t0, Pick: k}); len(c.Claimed) != 0 {
			t.Fatalf("%s: claimed %v, want nothing due", p.Name, urls(c.Claimed))
		}
		if got := k.Next(); !got.Equal(want) || want.IsZero() {
			t.Errorf("%s: Next() = %v, want %v (the first line to fall due)", p.Name, got, want)
		}
	}
}

// Results are recorded only on lines the recording spider holds; a result
// with no state returns the claim; the others are dropped.
func testRecord(t *testing.T, b Backend) {
	open := b.New(t)
	a, o := join(t, b, open, "a"), join(t, b, open, "other")
	seed(a, []line{
		{url: u("theirs"), found: at(-4 * time.Hour)}, {url: u("got"), found: at(-3 * time.Hour)},
		{url: u("back"), found: at(-2 * time.Hour)}, {url: u("free"), found: at(-time.Hour)},
		{url: u("err"), level: 1, found: at(-5 * time.Hour), res: list.Result{State: list.Downloaded, File: "err.html", Modified: at(-30 * time.Hour)}},
	})
	if got := o.claim(t0, slowProfile, 1); !equalStrings(got, []string{u("theirs")}) {
		t.Fatalf("other claimed %v", got)
	}
	if got := a.claim(t0, slowProfile, 100); !equalStrings(got, []string{u("got"), u("back"), u("free"), u("err")}) {
		t.Fatalf("a claimed %v", got)
	}
	a.run(&list.Cycle{Now: t0, Results: []list.Result{{URL: u("free")}}})
	mod := at(-time.Minute)
	c := a.run(&list.Cycle{Now: t0, Results: []list.Result{
		{URL: u("back")},
		{URL: u("err"), State: list.Error},
		{URL: u("got"), State: list.Error},
		{URL: u("got"), State: list.Downloaded, File: "p.html", Modified: mod.Add(500 * time.Millisecond), Due: at(time.Hour)},
		{URL: u("theirs"), State: list.Downloaded, File: "x", Modified: mod},
		{URL: u("free"), State: list.Downloaded, File: "x", Modified: mod},
		{URL: u("nowhere"), State: list.Downloaded, File: "x", Modified: mod},
	}})
	if c.Stats.Recorded != 3 || c.Stats.Dropped != 2 {
		t.Errorf("recorded %d, dropped %d; want 3, 2", c.Stats.Recorded, c.Stats.Dropped)
	}
	m := byURL(t, a.s)
	want := []list.Entry{
		{File: "p.html", State: list.Downloaded, Modified: mod, Due: at(time.Hour), URL: u("got")},
		{State: list.Found, Due: at(-2 * time.Hour), URL: u("back")},
		{File: "err.html", Level: 1, State: list.Error, Modified: at(-30 * time.Hour), URL: u("err")},
		{Spider: "other", State: list.Claimed, Due: at(-4 * time.Hour), URL: u("theirs")},
		{State: list.Found, Due: at(-time.Hour), URL: u("free")},
	}
	for _, w := range want {
		if g := m[w.URL]; g != w {
			t.Errorf("%s = %+v\nwant %+v", w.URL, g, w)
		}
	}
	if _, ok := m[u("nowhere")]; ok {
		t.Error("a result appended a line")
	}
}

// ReleaseOwn returns every claim the spider holds, restoring the lines.
func testReleaseOwn(t *testing.T, b Backend) {
	open := b.New(t)
	a := join(t, b, open, "a")
	seed(a, []line{
		{url: u("new"), found: at(-time.Hour)},
		{url: u("copy"), found: at(-time.Hour), res: list.Result{State: list.Downloaded, File: "c", Modified: at(-30 * time.Hour)}},
	})
	if got := a.claim(t0, slowProfile, 10); len(got) != 2 {
		t.Fatalf("claimed %v", got)
	}
	m := byURL(t, a.s)
	if m[u("new")].State != list.Claimed || m[u("copy")].State != list.Downloaded {
		t.Errorf("claimed lines: %+v", m)
	}
	c := a.run(&list.Cycle{Now: t0, ReleaseOwn: true})
	if c.Stats.TakenBack != 2 {
		t.Errorf("taken back %d, want 2", c.Stats.TakenBack)
	}
	m = byURL(t, a.s)
	if e := m[u("new")]; e.Spider != "" || e.State != list.Found {
		t.Errorf("released line %+v", e)
	}
	if e := m[u("copy")]; e.Spider != "" || e.State != list.Downloaded {
		t.Errorf("released line %+v", e)
	}
}

// The claims of a spider that died return to the pool at the next pass of
// any spider; while it lives they stand.
func testTakebackDead(t *testing.T, b Backend) {
	open := b.New(t)
	a, o := join(t, b, open, "a"), join(t, b, open, "other")
	seed(a, []line{{url: u("p"), found: at(-time.Hour)}, {url: u("q"), found: at(-time.Hour)}})
	if got := a.claim(t0, slowProfile, 1); !equalStrings(got, []string{u("p")}) {
		t.Fatalf("a claimed %v", got)
	}
	c := o.run(&list.Cycle{Now: t0, Lease: time.Hour, Pick: &claim.Picker{P: slowProfile, Now: t0}})
	if c.Stats.TakenBack != 0 || c.Stats.FirstElsewhere != 1 || !equalStrings(urls(c.Claimed), []string{u("q")}) {
		t.Errorf("while a lives: stats %+v, claimed %v", c.Stats, urls(c.Claimed))
	}
	a.unlock()
	c = o.run(&list.Cycle{Now: t0, Lease: time.Hour, Pick: &claim.Picker{P: slowProfile, Now: t0}})
	if c.Stats.TakenBack != 1 || !equalStrings(urls(c.Claimed), []string{u("p")}) {
		t.Errorf("after a died: stats %+v, claimed %v", c.Stats, urls(c.Claimed))
	}
	if e := c.Claimed; len(e) == 1 && (e[0].Spider != "" || e[0].State != list.Found) {
		t.Errorf("the line taken back was claimed as %+v", e[0])
	}
}

// A spider whose heartbeat (its last pass, or Beat) is older than its own
// lease has stalled: its claims are taken back although it lives.
func testTakebackStalled(t *testing.T, b Backend) {
	open := b.New(t)
	a, o := join(t, b, open, "a"), join(t, b, open, "other")
	seed(a, []line{{url: u("p"), found: at(-time.Hour)}})
	c := a.run(&list.Cycle{Now: t0, Lease: time.Minute, Pick: &claim.Picker{P: slowProfile, Now: t0}})
	if len(c.Claimed) != 1 {
		t.Fatalf("a claimed %v", urls(c.Claimed))
	}
	c = o.run(&list.Cycle{Now: t0.Add(30 * time.Second), Lease: time.Hour})
	if c.Stats.TakenBack != 0 {
		t.Errorf("took back the claims of a spider within its lease")
	}
	// A heartbeat between passes keeps the claims of a slow spider.
	if err := a.s.Beat(context.Background(), "a", t0.Add(90*time.Second)); err != nil {
		t.Fatal(err)
	}
	c = o.run(&list.Cycle{Now: t0.Add(2 * time.Minute), Lease: time.Hour})
	if c.Stats.TakenBack != 0 {
		t.Errorf("took back the claims of a spider that beat within its lease")
	}
	c = o.run(&list.Cycle{Now: t0.Add(3 * time.Minute), Lease: time.Hour})
	if c.Stats.TakenBack != 1 {
		t.Errorf("did not take back the claims of a stalled spider: %+v", c.Stats)
	}
}

// A late result of a claim that was taken back changes nothing: the line
// keeps the result of the spider that claimed it next.
func testFencing(t *testing.T, b Backend) {
	open := b.New(t)
	a, o := join(t, b, open, "a"), join(t, b, open, "other")
	seed(a, []line{{url: u("p"), found: at(-time.Hour)}})
	a.claim(t0, slowProfile, 1)
	a.unlock()
	if got := o.claim(t0, slowProfile, 1); !equalStrings(got, []string{u("p")}) {
		t.Fatalf("other claimed %v", got)
	}
	theirs := list.Result{URL: u("p"), State: list.Downloaded, File: "new", Modified: at(time.Minute), Due: at(time.Hour)}
	o.run(&list.Cycle{Now: at(time.Minute), Results: []list.Result{theirs}})
	// a comes back (a new process, the same id) with its late result.
	a2 := join(t, b, open, "a")
	c := a2.run(&list.Cycle{Now: at(2 * time.Minute), Results: []list.Result{{URL: u("p"), State: list.Downloaded, File: "old", Modified: t0}}})
	if c.Stats.Recorded != 0 || c.Stats.Dropped != 1 {
		t.Errorf("late result: %+v", c.Stats)
	}
	want := list.Entry{File: "new", State: list.Downloaded, Modified: at(time.Minute), Due: at(time.Hour), URL: u("p")}
	if got := byURL(t, a2.s)[u("p")]; got != want {
		t.Errorf("line = %+v\nwant %+v", got, want)
	}
}

// A second process with the id of a running spider is refused; once the
// first is gone, the id is free.
func testSecondLock(t *testing.T, b Backend) {
	open := b.New(t)
	a := join(t, b, open, "a")
	s := open(t)
	if _, err := b.Lock(t, s, "a"); !errors.Is(err, list.ErrRunning) {
		t.Fatalf("second lock of a: %v, want list.ErrRunning", err)
	}
	a.unlock()
	unlock, err := b.Lock(t, s, "a")
	if err != nil {
		t.Fatalf("lock after the first was released: %v", err)
	}
	unlock()
}
