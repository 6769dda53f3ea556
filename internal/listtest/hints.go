package listtest

import (
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// A hint newer than a line's copy marks the line hinted (its due becomes
// the copy's time), once; an older hint, or one for a line with no copy,
// changes nothing.
func testHints(t *testing.T, b Backend) {
	open := b.New(t)
	sp := join(t, b, open, "a")
	mod := at(-48 * time.Hour)
	seed(sp, []line{
		{url: u("copy"), level: 1, found: at(-72 * time.Hour), res: list.Result{State: list.Downloaded, File: "copy.html", Modified: mod, Due: at(24 * time.Hour)}},
		{url: u("old"), level: 1, found: at(-72 * time.Hour), res: list.Result{State: list.Downloaded, File: "old.html", Modified: mod, Due: at(24 * time.Hour)}},
		{url: u("none"), level: 1, found: at(-72 * time.Hour)},
		{url: u("just"), level: 1, found: at(-72 * time.Hour), res: list.Result{State: list.Downloaded, File: "just.html", Modified: mod, Due: at(24 * time.Hour)}},
	})
	hint := func(url string, h time.Time) list.CycleStats {
		return sp.run(&list.Cycle{Now: at(0), Add: []list.Add{{URL: url, Level: 1, Hint: h}}}).Stats
	}
	if st := hint(u("copy"), at(-time.Hour)); st.Hinted != 1 {
		t.Errorf("hinted %d, want 1", st.Hinted)
	}
	if st := hint(u("copy"), at(-time.Minute)); st.Hinted != 0 {
		t.Errorf("a hinted line was hinted again (%d)", st.Hinted)
	}
	if st := hint(u("old"), mod.Add(-time.Hour)); st.Hinted != 0 {
		t.Errorf("a hint older than the copy counted (%d)", st.Hinted)
	}
	// Newer by less than the times the stores keep: newer still.
	if st := hint(u("just"), mod.Add(time.Nanosecond)); st.Hinted != 1 {
		t.Errorf("a hint a nanosecond after the copy counted %d, want 1", st.Hinted)
	}
	if st := hint(u("none"), at(-time.Hour)); st.Hinted != 0 {
		t.Errorf("a hint on a line with no copy counted (%d)", st.Hinted)
	}
	m := byURL(t, sp.s)
	if e := m[u("copy")]; !e.Hinted() || !e.Due.Equal(mod) {
		t.Errorf("hinted line %+v: want due = modified = %v", e, mod)
	}
	if e := m[u("old")]; e.Hinted() || !e.Due.Equal(at(24*time.Hour)) {
		t.Errorf("line hinted before its copy changed: %+v", e)
	}
	if e := m[u("none")]; e.Hinted() || !e.Due.Equal(at(-72*time.Hour)) {
		t.Errorf("line with no copy changed by a hint: %+v", e)
	}
}

// A hint that comes while the line's claim is out (the visit may have
// begun before the change a hub announced) keeps the line hinted after
// the visit's result, so the announcement is not lost; a claim that was
// for a hint (list.Result.ForHint) answers it.
func testHintWhileOut(t *testing.T, b Backend) {
	open := b.New(t)
	a, o := join(t, b, open, "a"), join(t, b, open, "other")
	mod := at(-48 * time.Hour)
	seed(a, []line{
		{url: u("out"), level: 1, found: at(-72 * time.Hour), res: list.Result{State: list.Downloaded, File: "out.html", Modified: mod, Due: at(-time.Hour)}},
		{url: u("asked"), level: 1, found: at(-72 * time.Hour), res: list.Result{State: list.Downloaded, File: "asked.html", Modified: mod, Due: at(-time.Hour)}},
	})
	if got := a.claim(t0, slowProfile, 10); len(got) != 2 {
		t.Fatalf("a claimed %v, want both lines", got)
	}
	hinted := o.run(&list.Cycle{Now: t0, Add: []list.Add{{URL: u("out"), Level: 1, Hint: at(-time.Minute)}, {URL: u("asked"), Level: 1, Hint: at(-time.Minute)}}})
	if hinted.Stats.Hinted != 2 {
		t.Fatalf("hinted %d claimed lines, want 2", hinted.Stats.Hinted)
	}
	visited := at(-2 * time.Minute) // the visits began before the hub's
	a.run(&list.Cycle{Now: t0, Results: []list.Result{
		{URL: u("out"), State: list.Downloaded, File: "out.html", Modified: visited, Due: at(time.Hour)},
		{URL: u("asked"), State: list.Downloaded, File: "asked.html", Modified: visited, Due: at(time.Hour), ForHint: true},
	}})
	m := byURL(t, a.s)
	if e := m[u("out")]; !e.Hinted() || !e.Modified.Equal(visited) || !e.Due.Equal(visited) {
		t.Errorf("a line hinted while out: %+v; want its new copy hinted (due = modified = %v)", e, visited)
	}
	if e := m[u("asked")]; e.Hinted() || !e.Due.Equal(at(time.Hour)) {
		t.Errorf("a line claimed for its hint: %+v; want due %v", e, at(time.Hour))
	}
}
