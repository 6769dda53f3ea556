package list

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A list of format version 1 is read as lines whose due is unknown, and
// written as version 2 by the first pass that changes a line of it.
func TestVersion1IsReadAndUpgraded(t *testing.T) {
	l := listAt(t, "# spider-list v1: file spider_id level state last_modification url\n"+
		"h/x.html             -            0 downloaded 2026-11-20T10:00:00Z http://h/x\n"+
		"-                    -            1 found      -                    http://h/y\n")
	got := entries(t, l)
	if len(got) != 2 || got[0].Modified != mustTime("2026-11-20T10:00:00Z") || !got[0].Due.IsZero() || got[1].URL != "http://h/y" {
		t.Fatalf("version 1 read as %+v", got)
	}
	c := run(t, l, &Cycle{Spider: "a", Now: t0, Pick: allPicker{1}})
	if !c.Stats.Rewrote {
		t.Error("claiming a version 1 line did not rewrite the list")
	}
	b, _ := os.ReadFile(l.Path())
	if !strings.HasPrefix(string(b), Header+"\n") {
		t.Errorf("rewritten list starts %q", strings.SplitN(string(b), "\n", 2)[0])
	}
	if after := entries(t, l); after[0].Modified != got[0].Modified || after[1].URL != got[1].URL {
		t.Errorf("upgrade changed the lines: %+v", after)
	}
	// Now padded: the next pass writes in place.
	if c := run(t, l, &Cycle{Spider: "a", Now: t0, Pick: allPicker{2}}); c.Stats.Rewrote {
		t.Error("a version 2 list was rewritten")
	}
}

func TestDueOfAppendRecordAndHint(t *testing.T) {
	copyAt, found := mustTime("2026-11-20T10:00:00Z"), t0.Add(-time.Hour)
	l := listAt(t, Header+"\n")
	run(t, l, &Cycle{Spider: "a", Now: found, Add: []Add{{URL: "http://h/a", Level: 0}, {URL: "http://h/b", Level: 1}}})
	for _, e := range entries(t, l) {
		if e.Due != found.UTC().Truncate(time.Second) {
			t.Errorf("appended %s due %v, want when found %v", e.URL, e.Due, found)
		}
	}
	next := copyAt.Add(3 * time.Hour)
	run(t, l, &Cycle{Spider: "a", Now: found, Pick: allPicker{2}})
	run(t, l, &Cycle{Spider: "a", Now: found, Results: []Result{
		{URL: "http://h/a", State: Downloaded, File: "h/a.html", Modified: copyAt, Due: next},
		{URL: "http://h/b", State: Downloaded, File: "h/b.html", Modified: copyAt},
	}})
	got := entries(t, l)
	if got[0].Due != next || !got[1].Due.IsZero() || got[0].Hinted() {
		t.Fatalf("recorded: %+v", got)
	}
	tests := []struct {
		hint   time.Time
		hinted bool
	}{
		{time.Time{}, false},              // no hint
		{copyAt.Add(-time.Minute), false}, // older than the copy: no news
		{copyAt, false},                   // the copy's own time
		{copyAt.Add(time.Minute), true},   // newer than the copy
	}
	for _, tt := range tests {
		l := listAt(t, Header+"\n")
		run(t, l, &Cycle{Spider: "a", Now: found, Add: []Add{{URL: "http://h/a"}}, Pick: allPicker{1}})
		run(t, l, &Cycle{Spider: "a", Now: found, Results: []Result{{URL: "http://h/a", State: Downloaded, File: "h/a.html", Modified: copyAt, Due: next}}})
		// The hint counts whichever of the URL's Adds carries it.
		c := run(t, l, &Cycle{Spider: "b", Now: t0, Add: []Add{{URL: "http://h/a", Level: 0}, {URL: "http://h/a", Level: 2, Hint: tt.hint}}})
		e := entries(t, l)[0]
		if e.Hinted() != tt.hinted || (c.Stats.Hinted == 1) != tt.hinted {
			t.Errorf("hint %v: hinted %v (stats %d), want %v; line %+v", tt.hint, e.Hinted(), c.Stats.Hinted, tt.hinted, e)
		}
		if tt.hinted && e.Due != copyAt {
			t.Errorf("hinted line due %v, want the copy's time %v", e.Due, copyAt)
		}
	}
}

// A pass counts the lines never visited that another live spider holds:
// a spider that stops when idle waits for their visits.
func TestFirstElsewhere(t *testing.T) {
	l := listAt(t, Header+"\n")
	other, err := LockSpider(l.Path(), "b")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Unlock()
	run(t, l, &Cycle{Spider: "b", Now: t0, Add: []Add{{URL: "http://h/new"}, {URL: "http://h/seen"}}, Pick: allPicker{2}})
	run(t, l, &Cycle{Spider: "b", Now: t0, Results: []Result{{URL: "http://h/seen", State: Downloaded, File: "h/s", Modified: t0}}})
	c := run(t, l, &Cycle{Spider: "a", Now: t0})
	if c.Stats.FirstElsewhere != 1 {
		t.Errorf("FirstElsewhere = %d, want 1 (the unvisited line b holds)", c.Stats.FirstElsewhere)
	}
	other.Unlock()
	if c := run(t, l, &Cycle{Spider: "a", Now: t0}); c.Stats.FirstElsewhere != 0 || c.Stats.TakenBack != 1 {
		t.Errorf("after b died: FirstElsewhere %d, taken back %d; want 0 and 1", c.Stats.FirstElsewhere, c.Stats.TakenBack)
	}
}

// Two Adds of one URL in a pass, a link without a hint and a sitemap's
// with one, in either order and at any levels: the hint counts.
func TestHintOfDuplicateAdds(t *testing.T) {
	copyAt := mustTime("2026-11-20T10:00:00Z")
	hint := copyAt.Add(time.Hour)
	for _, adds := range [][]Add{
		{{URL: "http://h/a", Level: 1}, {URL: "http://h/a", Level: 1, Hint: hint}},
		{{URL: "http://h/a", Level: 1, Hint: hint}, {URL: "http://h/a", Level: 0}},
		{{URL: "http://h/a", Level: 2, Hint: copyAt}, {URL: "http://h/a", Level: 1, Hint: hint}, {URL: "http://h/a", Level: 1}},
	} {
		l := listAt(t, Header+"\n")
		run(t, l, &Cycle{Spider: "a", Now: t0, Add: []Add{{URL: "http://h/a", Level: 3}}, Pick: allPicker{1}})
		run(t, l, &Cycle{Spider: "a", Now: t0, Results: []Result{{URL: "http://h/a", State: Downloaded, File: "h/a.html", Modified: copyAt}}})
		run(t, l, &Cycle{Spider: "b", Now: t0, Add: adds})
		if e := entries(t, l)[0]; !e.Hinted() || e.Level > 1 {
			t.Errorf("adds %+v: line %+v, want hinted at the shallowest level", adds, e)
		}
	}
}

// A pass says how many lines never visited it leaves unclaimed.
func TestUnvisited(t *testing.T) {
	l := listAt(t, Header+"\n")
	c := run(t, l, &Cycle{Spider: "a", Now: t0, Add: []Add{{URL: "http://h/1"}, {URL: "http://h/2"}, {URL: "http://h/3"}}, Pick: allPicker{1}})
	if c.Stats.Unvisited != 2 {
		t.Errorf("after appending 3 and claiming 1: Unvisited %d, want 2", c.Stats.Unvisited)
	}
	c = run(t, l, &Cycle{Spider: "a", Now: t0, Results: []Result{{URL: "http://h/1", State: Downloaded, File: "h/1", Modified: t0}}, Pick: allPicker{2}})
	if c.Stats.Unvisited != 0 {
		t.Errorf("after claiming the other 2: Unvisited %d, want 0", c.Stats.Unvisited)
	}
}
