package listtest

import (
	"slices"
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

// A pass tells its spider which of the lines it holds are hinted
// (list.Cycle.HintedClaims), whichever spider's hint marked them, its own
// pass's included: not the lines it recorded, handed back or released in
// the pass, nor another spider's.
func testHintedClaims(t *testing.T, b Backend) {
	open := b.New(t)
	a, o := join(t, b, open, "a"), join(t, b, open, "other")
	mod := at(-48 * time.Hour)
	var lines []line
	for _, p := range []string{"c1", "c2", "c3", "c4"} {
		lines = append(lines, line{url: u(p), level: 1, found: at(-72 * time.Hour),
			res: list.Result{State: list.Downloaded, File: p + ".html", Modified: mod, Due: at(-time.Hour)}})
	}
	lines = append(lines, line{url: u("new"), level: 1, found: at(-72 * time.Hour)})
	seed(a, lines)
	mine := a.claim(t0, slowProfile, 3)
	theirs := o.claim(t0, slowProfile, 10)
	if len(mine) != 3 || len(theirs) != 2 || !slices.Contains(mine, u("new")) {
		t.Fatalf("a claimed %v, other %v: want the new line and two copies, and the other two", mine, theirs)
	}
	held := func(sp *spider, c *list.Cycle) []string {
		t.Helper()
		c.Now = t0
		return sp.run(c).HintedClaims
	}
	if got := held(a, &list.Cycle{}); len(got) != 0 {
		t.Errorf("before any hint, hinted claims %v", got)
	}
	// In list order: the lines' order in lines.
	inOrder := func(claimed []string) []string {
		var out []string
		for _, l := range lines {
			if slices.Contains(claimed, l.url) && l.url != u("new") {
				out = append(out, l.url)
			}
		}
		return out
	}
	copies := inOrder(mine)
	// A hint of the spider's own pass counts too.
	own := []list.Add{{URL: copies[0], Level: 1, Hint: at(-time.Minute)}}
	if got, want := held(a, &list.Cycle{Add: own}), copies[:1]; !equalStrings(got, want) {
		t.Errorf("after its own hint, a's hinted claims %v, want %v", got, want)
	}
	var hints []list.Add
	for _, l := range lines {
		hints = append(hints, list.Add{URL: l.url, Level: 1, Hint: at(-time.Minute)})
	}
	if st := o.run(&list.Cycle{Now: t0, Add: hints}).Stats; st.Hinted != 3 {
		t.Fatalf("hinted %d lines, want the 3 copies not hinted yet", st.Hinted)
	}
	got := held(a, &list.Cycle{Results: []list.Result{{URL: copies[0], State: list.Downloaded, File: "x.html", Modified: t0, Due: at(time.Hour), ForHint: true}}})
	if want := copies[1:]; !equalStrings(got, want) {
		t.Errorf("a's hinted claims %v, want %v (not the one recorded, nor the new line)", got, want)
	}
	if got := held(a, &list.Cycle{Results: []list.Result{{URL: copies[1]}}}); len(got) != 0 {
		t.Errorf("after handing back its hinted claim, a's hinted claims %v", got)
	}
	if got, want := held(o, &list.Cycle{}), inOrder(theirs); !equalStrings(got, want) {
		t.Errorf("the other's hinted claims %v, want %v", got, want)
	}
	if got := held(a, &list.Cycle{ReleaseOwn: true}); len(got) != 0 {
		t.Errorf("after releasing its claims, hinted claims %v", got)
	}
}
