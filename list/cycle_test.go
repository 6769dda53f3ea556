package list

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// allPicker claims every unclaimed line, in level then file order.
type allPicker struct{ max int }

func (p allPicker) Due(e *Entry) bool     { return e.State == Found || e.State == Error }
func (p allPicker) Less(a, b *Entry) bool { return a.Level < b.Level }
func (p allPicker) Max() int              { return p.max }

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newList(t *testing.T) *List {
	t.Helper()
	l, err := Open(filepath.Join(t.TempDir(), "urls.list"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func run(t *testing.T, l *List, c *Cycle) *Cycle {
	t.Helper()
	if c.Now.IsZero() {
		c.Now = t0
	}
	if err := l.Run(context.Background(), c); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return c
}

func entries(t *testing.T, l *List) []Entry {
	t.Helper()
	var es []Entry
	if err := l.Scan(context.Background(), func(e *Entry) error { es = append(es, e.Clone()); return nil }); err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return es
}

func urls(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.URL)
	}
	return out
}

func TestCycleAddDedupClaimRecord(t *testing.T) {
	l := newList(t)
	c := run(t, l, &Cycle{Spider: "fast",
		Add:  []Add{{URL: "http://a/", Level: 0}, {URL: "http://a/x", Level: 1}, {URL: "http://a/", Level: 0}, {URL: "http://a/x", Level: 2}},
		Pick: allPicker{1}})
	if c.Stats.Added != 2 {
		t.Errorf("added %d, want 2 (duplicates within a pass)", c.Stats.Added)
	}
	// New lines are claimable in the pass that adds them.
	if got := urls(c.Claimed); !slices.Equal(got, []string{"http://a/"}) {
		t.Fatalf("claimed %v, want the level-0 line", got)
	}
	c = run(t, l, &Cycle{Spider: "fast", Add: []Add{{URL: "http://a/x", Level: 1}, {URL: "http://a/y", Level: 1}}})
	if c.Stats.Added != 1 {
		t.Errorf("added %d, want 1 (duplicate of an existing line)", c.Stats.Added)
	}
	es := entries(t, l)
	if es[0].Spider != "fast" || es[0].State != Claimed {
		t.Errorf("after claim: %+v", es[0])
	}
	if es[1].Level != 1 {
		t.Errorf("level of http://a/x = %d, want 1 (first and lowest add wins)", es[1].Level)
	}
	mod := t0.Add(time.Minute)
	c = run(t, l, &Cycle{Spider: "fast", Now: mod, Results: []Result{{URL: "http://a/", State: Downloaded, File: "a/index.html", Modified: mod}}})
	if c.Stats.Recorded != 1 {
		t.Errorf("recorded %d, want 1", c.Stats.Recorded)
	}
	es = entries(t, l)
	want := Entry{File: "a/index.html", Level: 0, State: Downloaded, Modified: mod, URL: "http://a/"}
	if es[0] != want {
		t.Errorf("after record: %+v, want %+v", es[0], want)
	}
	if len(es) != 3 {
		t.Errorf("%d lines, want 3", len(es))
	}
}

func TestCycleRefreshKeepsState(t *testing.T) {
	l := newList(t)
	run(t, l, &Cycle{Spider: "slow", Add: []Add{{URL: "http://a/", Level: 0}}})
	run(t, l, &Cycle{Spider: "slow", Pick: allPicker{5}})
	run(t, l, &Cycle{Spider: "slow", Results: []Result{{URL: "http://a/", State: Error}}})
	c := run(t, l, &Cycle{Spider: "slow", Pick: allPicker{5}})
	es := entries(t, l)
	if len(c.Claimed) != 1 || es[0].State != Error || es[0].Spider != "slow" {
		t.Fatalf("claimed %v; line %+v: a refresh claim keeps the state", urls(c.Claimed), es[0])
	}
	run(t, l, &Cycle{Spider: "slow", Results: []Result{{URL: "http://a/"}}}) // returned unfetched
	if es := entries(t, l); es[0].State != Error || es[0].Spider != "" {
		t.Errorf("released: %+v", es[0])
	}
}

func TestCycleDropsResultOfLostClaim(t *testing.T) {
	l := newList(t)
	run(t, l, &Cycle{Spider: "fast", Add: []Add{{URL: "http://a/", Level: 0}}})
	sl, err := LockSpider(l.Path(), "slow")
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Unlock()
	run(t, l, &Cycle{Spider: "slow", Pick: allPicker{1}})
	c := run(t, l, &Cycle{Spider: "fast", Results: []Result{{URL: "http://a/", State: Downloaded, File: "a/index.html", Modified: t0}}})
	if c.Stats.Dropped != 1 || c.Stats.Recorded != 0 {
		t.Errorf("recorded %d dropped %d, want 0 and 1", c.Stats.Recorded, c.Stats.Dropped)
	}
	if es := entries(t, l); es[0].Spider != "slow" || es[0].State != Claimed {
		t.Errorf("line changed by a spider without the claim: %+v", es[0])
	}
}

func TestCycleTakesBackDeadAndStalledClaims(t *testing.T) {
	l := newList(t)
	run(t, l, &Cycle{Spider: "a", Add: []Add{{URL: "http://a/1", Level: 0}, {URL: "http://a/2", Level: 0}}})
	// Spider "paused" holds its lock but its heartbeat is old.
	sl, err := LockSpider(l.Path(), "paused")
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Unlock()
	run(t, l, &Cycle{Spider: "paused", Now: t0.Add(-time.Hour), Pick: allPicker{1}})
	// Spider "dead" claimed without holding its lock: a crashed process.
	run(t, l, &Cycle{Spider: "dead", Pick: allPicker{1}})
	if es := entries(t, l); es[0].Spider != "paused" || es[1].Spider != "dead" {
		t.Fatalf("setup: %+v", es)
	}
	c := run(t, l, &Cycle{Spider: "a", Lease: 10 * time.Minute, Pick: allPicker{5}})
	if c.Stats.TakenBack != 2 {
		t.Errorf("taken back %d, want 2", c.Stats.TakenBack)
	}
	if got := urls(c.Claimed); len(got) != 2 {
		t.Errorf("claimed %v, want both lines back in the pool in the same pass", got)
	}
	// A live spider within its lease keeps its claims.
	l2 := newList(t)
	run(t, l2, &Cycle{Spider: "a", Add: []Add{{URL: "http://a/1", Level: 0}}})
	sl2, err := LockSpider(l2.Path(), "live")
	if err != nil {
		t.Fatal(err)
	}
	defer sl2.Unlock()
	run(t, l2, &Cycle{Spider: "live", Pick: allPicker{1}})
	c = run(t, l2, &Cycle{Spider: "a", Lease: 10 * time.Minute, Pick: allPicker{5}})
	if c.Stats.TakenBack != 0 || len(c.Claimed) != 0 {
		t.Errorf("took %d and claimed %v from a live spider", c.Stats.TakenBack, urls(c.Claimed))
	}
	// Its own old claims are taken back by a restarted spider.
	c = run(t, l2, &Cycle{Spider: "live", ReleaseOwn: true})
	if c.Stats.TakenBack != 1 {
		t.Errorf("ReleaseOwn took back %d, want 1", c.Stats.TakenBack)
	}
}

func TestLockSpiderExclusive(t *testing.T) {
	l := newList(t)
	a, err := LockSpider(l.Path(), "fast")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockSpider(l.Path(), "fast"); !errors.Is(err, ErrRunning) {
		t.Errorf("second lock: %v, want ErrRunning", err)
	}
	a.Unlock()
	b, err := LockSpider(l.Path(), "fast")
	if err != nil {
		t.Errorf("lock after unlock: %v", err)
	} else {
		b.Unlock()
	}
}

func TestTornTail(t *testing.T) {
	l := newList(t)
	run(t, l, &Cycle{Spider: "a", Add: []Add{{URL: "http://a/1", Level: 0}, {URL: "http://a/2", Level: 0}}})
	data, _ := os.ReadFile(l.Path())
	good := len(data)
	last := strings.LastIndexByte(string(data[:len(data)-1]), '\n') + 1
	for cut := last; cut < len(data); cut++ {
		os.WriteFile(l.Path(), data[:cut], 0o644)
		if es := entries(t, l); len(es) != 1 {
			t.Fatalf("cut at %d: %d entries, want the 1 complete line", cut, len(es))
		}
	}
	// A writing pass truncates the torn tail before appending.
	os.WriteFile(l.Path(), append(slices.Clone(data), "- - 0 fou"...), 0o644)
	c := run(t, l, &Cycle{Spider: "a", Add: []Add{{URL: "http://a/3", Level: 0}}})
	if c.Stats.TornBytes != 9 {
		t.Errorf("torn bytes %d, want 9", c.Stats.TornBytes)
	}
	after, _ := os.ReadFile(l.Path())
	if !strings.HasPrefix(string(after), string(data[:good])) || len(entries(t, l)) != 3 {
		t.Errorf("after torn-tail repair:\n%s", after)
	}
}

func TestMalformedLineStopsPass(t *testing.T) {
	l := newList(t)
	run(t, l, &Cycle{Spider: "a", Add: []Add{{URL: "http://a/1", Level: 0}}})
	f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "- - 0 found - http://a/2\ngarbage here\n- - 0 found - http://a/3\n")
	f.Close()
	before, _ := os.ReadFile(l.Path())
	err := l.Run(context.Background(), &Cycle{Spider: "a", Now: t0, Add: []Add{{URL: "http://a/4", Level: 0}}, Pick: allPicker{9}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || pe.Path != l.Path() {
		t.Fatalf("err = %v, want ParseError at line 4 of %s", err, l.Path())
	}
	if after, _ := os.ReadFile(l.Path()); string(after) != string(before) {
		t.Errorf("a failed pass changed the file")
	}
}

func TestSqueezedLineRewrites(t *testing.T) {
	l := newList(t)
	os.WriteFile(l.Path(), []byte(Header+"\n# a comment\n- - 0 found - http://a/\n\n- - 1 found - http://a/b\n"), 0o644)
	c := run(t, l, &Cycle{Spider: "fast", Pick: allPicker{1}})
	if !c.Stats.Rewrote {
		t.Error("claim on a squeezed line did not rewrite")
	}
	c = run(t, l, &Cycle{Spider: "fast", Results: []Result{{URL: "http://a/", State: Downloaded, File: "a/index.html", Modified: t0}}, Pick: allPicker{1}})
	if c.Stats.Rewrote {
		t.Error("second pass rewrote: padding was not restored")
	}
	es := entries(t, l)
	if len(es) != 2 || es[0].File != "a/index.html" || es[1].Spider != "fast" {
		t.Errorf("entries %+v", es)
	}
	data, _ := os.ReadFile(l.Path())
	if !strings.Contains(string(data), "# a comment\n") {
		t.Errorf("rewrite lost the comment:\n%s", data)
	}
}

// After a power cut the tail of a file can hold zeros (its size grew, its
// data never landed) or garbage. Without a newline it is a torn line:
// ignored by readers, dropped by the next pass, reported in its stats.
// With a newline it is a malformed line: reported, nothing written.
func TestDamagedTail(t *testing.T) {
	base := Header + "\n- - 0 found - http://a/1\n- - 0 found - http://a/2\n"
	tails := []struct {
		name, tail string
		torn       bool
	}{
		{"zeros", strings.Repeat("\x00", 4096), true},
		{"garbage", "\xff\xfe#!garbage \x01\x02", true},
		{"half a line", "- - 0 fou", true},
		{"zeros with a newline", strings.Repeat("\x00", 100) + "\n", false},
		{"garbage line", "this is not a list line\n", false},
	}
	for _, tt := range tails {
		l := listAt(t, base+tt.tail)
		err := l.Scan(context.Background(), func(*Entry) error { return nil })
		if tt.torn {
			if got := entries(t, l); err != nil || len(got) != 2 {
				t.Errorf("%s: read %d entries, %v", tt.name, len(got), err)
			}
			c := run(t, l, &Cycle{Spider: "a", Add: []Add{{URL: "http://a/3", Level: 1}}})
			if c.Stats.TornBytes != int64(len(tt.tail)) {
				t.Errorf("%s: torn bytes %d, want %d", tt.name, c.Stats.TornBytes, len(tt.tail))
			}
			if data, _ := os.ReadFile(l.Path()); !strings.HasPrefix(string(data), base+"-") || len(entries(t, l)) != 3 {
				t.Errorf("%s: after a pass:\n%q", tt.name, data)
			}
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 4 {
			t.Errorf("%s: err %v, want a ParseError at line 4", tt.name, err)
		}
		if err := l.Run(context.Background(), &Cycle{Spider: "a", Now: t0, Add: []Add{{URL: "http://a/3", Level: 1}}}); !errors.As(err, &pe) {
			t.Errorf("%s: pass err %v", tt.name, err)
		}
		if data, _ := os.ReadFile(l.Path()); string(data) != base+tt.tail {
			t.Errorf("%s: a failed pass changed the file", tt.name)
		}
	}
}

// A chunked read sees exactly what one read pass sees, and notices a
// rewrite between its chunks.
func TestScanChunk(t *testing.T) {
	l := newList(t)
	var adds []Add
	for i := 0; i < 300; i++ {
		adds = append(adds, Add{URL: fmt.Sprintf("http://a/%d", i), Level: i % 3})
	}
	run(t, l, &Cycle{Spider: "a", Add: adds})
	want := entries(t, l)
	for _, size := range []int{1, 100, 1000, 1 << 20} {
		var got []Entry
		for off := int64(0); ; {
			next, err := l.ScanChunk(context.Background(), off, size, func(e *Entry) error {
				got = append(got, e.Clone())
				return nil
			})
			if err != nil {
				t.Fatalf("chunk %d at %d: %v", size, off, err)
			}
			if next == off {
				break
			}
			off = next
		}
		if !slices.Equal(got, want) {
			t.Errorf("chunks of %d bytes: %d entries, want %d", size, len(got), len(want))
		}
	}
	next, err := l.ScanChunk(context.Background(), 0, 1000, func(*Entry) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ScanChunk(context.Background(), next, 1000, func(*Entry) error { return nil }); !errors.Is(err, ErrReplaced) {
		t.Errorf("after a rewrite: %v, want ErrReplaced", err)
	}
}

func TestAddRejectsLevelOutOfRange(t *testing.T) {
	l := newList(t)
	if _, err := l.Add(context.Background(), []Add{{URL: "http://a/", Level: MaxLevel + 1}}); err == nil {
		t.Error("a level beyond MaxLevel was accepted")
	}
	if _, err := l.Add(context.Background(), []Add{{URL: "http://a/", Level: MaxLevel}}); err != nil {
		t.Errorf("MaxLevel: %v", err)
	}
	if es := entries(t, l); len(es) != 1 || es[0].Level != MaxLevel {
		t.Errorf("entries %+v", es)
	}
}

// A link found on a shallower page than the one that first brought it
// lowers its line's level, in place, whatever else the line holds; a
// deeper one changes nothing.
func TestCycleLowersLevel(t *testing.T) {
	l := newList(t)
	run(t, l, &Cycle{Spider: "slow", Add: []Add{{URL: "http://a/deep", Level: 12}, {URL: "http://a/claimed", Level: 5}, {URL: "http://a/same", Level: 7}}})
	run(t, l, &Cycle{Spider: "slow", Pick: allPicker{1}}) // claims /claimed, which the lowering must keep claimed
	before := entries(t, l)
	if before[1].Spider != "slow" {
		t.Fatalf("set-up: %+v not claimed", before[1])
	}
	c := run(t, l, &Cycle{Spider: "slow", Add: []Add{
		{URL: "http://a/deep", Level: 9}, // 12 → 9: one digit fewer
		{URL: "http://a/claimed", Level: 2},
		{URL: "http://a/same", Level: 8}, // deeper: no change
		{URL: "http://a/deep", Level: 10},
	}})
	if c.Stats.Lowered != 2 || c.Stats.Added != 0 || c.Stats.Rewrote {
		t.Errorf("stats %+v: want 2 lowered, none added, written in place", c.Stats)
	}
	after := entries(t, l)
	want := map[string]int{"http://a/deep": 9, "http://a/claimed": 2, "http://a/same": 7}
	for i, e := range after {
		if e.Level != want[e.URL] {
			t.Errorf("%s: level %d, want %d", e.URL, e.Level, want[e.URL])
		}
		b := before[i]
		if e.URL != b.URL || e.Spider != b.Spider || e.State != b.State || e.File != b.File || !e.Modified.Equal(b.Modified) {
			t.Errorf("line %d changed beyond its level:\nbefore %+v\nafter  %+v", i, b, e)
		}
	}
}
