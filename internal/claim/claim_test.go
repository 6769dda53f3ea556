package claim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

var (
	now  = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	fast = Profile{Name: "fast", Window: time.Hour, MaxLevel: 3, Batch: 2}
	slow = Profile{Name: "slow", Window: 24 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour, Batch: 3}
)

func ago(d time.Duration) time.Time { return now.Add(-d) }

func TestDue(t *testing.T) {
	tests := []struct {
		name string
		p    Profile
		e    list.Entry
		want bool
	}{
		{"no copy", fast, list.Entry{Level: 0, State: list.Found}, true},
		{"fresh copy", fast, list.Entry{Level: 0, State: list.Downloaded, Modified: ago(59 * time.Minute)}, false},
		{"copy exactly window old", fast, list.Entry{Level: 0, State: list.Downloaded, Modified: ago(time.Hour)}, true},
		{"old copy", fast, list.Entry{Level: 2, State: list.Downloaded, Modified: ago(2 * time.Hour)}, true},
		{"fast level limit", fast, list.Entry{Level: 4, State: list.Found}, false},
		{"fast at limit", fast, list.Entry{Level: 3, State: list.Found}, true},
		{"claimed by other", fast, list.Entry{Level: 0, Spider: "slow", State: list.Claimed}, false},
		{"refresh claimed", slow, list.Entry{Level: 0, Spider: "fast", State: list.Downloaded, Modified: ago(48 * time.Hour)}, false},
		{"slow window", slow, list.Entry{Level: 9, State: list.Downloaded, Modified: ago(23 * time.Hour)}, false},
		{"slow deep old", slow, list.Entry{Level: 9, State: list.Downloaded, Modified: ago(25 * time.Hour)}, true},
		{"slow archived old", slow, list.Entry{Level: 1, State: list.Archived, Modified: ago(25 * time.Hour)}, true},
		{"error without copy", fast, list.Entry{Level: 1, State: list.Error}, true},
		{"disallowed within window", fast, list.Entry{Level: 1, State: list.Disallowed, Modified: ago(30 * time.Minute)}, false},
		{"disallowed due again", fast, list.Entry{Level: 1, State: list.Disallowed, Modified: ago(61 * time.Minute)}, true},
		{"stale beyond level limit", Profile{Window: time.Hour, MaxLevel: 1, Stale: 336 * time.Hour}, list.Entry{Level: 7, State: list.Downloaded, Modified: ago(337 * time.Hour)}, true},
		{"not stale beyond level limit", Profile{Window: time.Hour, MaxLevel: 1, Stale: 336 * time.Hour}, list.Entry{Level: 7, State: list.Downloaded, Modified: ago(300 * time.Hour)}, false},
	}
	for _, tt := range tests {
		if got := Due(tt.p, &tt.e, now); got != tt.want {
			t.Errorf("%s: Due = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Select is the reference: sort the due entries by Less, take Batch.
func selectURLs(p Profile, es []list.Entry) []string {
	var due []list.Entry
	for _, e := range es {
		if Due(p, &e, now) {
			due = append(due, e)
		}
	}
	slices.SortStableFunc(due, func(a, b list.Entry) int {
		switch {
		case Less(p, now, &a, &b):
			return -1
		case Less(p, now, &b, &a):
			return 1
		}
		return 0
	})
	var out []string
	for i := 0; i < len(due) && i < p.Batch; i++ {
		out = append(out, due[i].URL)
	}
	return out
}

func TestOrder(t *testing.T) {
	es := []list.Entry{
		{URL: "deep-new", Level: 3, State: list.Found},
		{URL: "top-old", Level: 0, State: list.Downloaded, Modified: ago(5 * time.Hour)},
		{URL: "top-older", Level: 0, State: list.Downloaded, Modified: ago(9 * time.Hour)},
		{URL: "top-new", Level: 0, State: list.Found},
		{URL: "mid-new", Level: 1, State: list.Found},
		{URL: "ancient-deep", Level: 12, State: list.Downloaded, Modified: ago(400 * time.Hour)},
		{URL: "fresh", Level: 0, State: list.Downloaded, Modified: ago(time.Minute)},
		{URL: "waited-deep", Level: 9, State: list.Found, Due: ago(400 * time.Hour)},
	}
	tests := []struct {
		p    Profile
		want []string
	}{
		// Lines never visited and start pages past their window first,
		// lowest level first, the longest waiting first.
		{fast, []string{"top-new", "top-older"}},
		// The slow profile takes a first visit that waited past the
		// stale bound first, regardless of level; then the other first
		// visits; then copies past the stale bound: a missing page
		// before an old copy.
		{slow, []string{"waited-deep", "top-new", "mid-new", "deep-new", "ancient-deep"}},
	}
	tests[1].p.Batch = len(es)
	for _, tt := range tests {
		if got := selectURLs(tt.p, es); !slices.Equal(got, tt.want) {
			t.Errorf("%s: picked %v, want %v", tt.p.Name, got, tt.want)
		}
	}
}

func TestPicker(t *testing.T) {
	k := &Picker{P: fast, Now: now, Want: 1, Skip: func(u string) bool { return u == "skip" }}
	if k.Max() != 1 {
		t.Errorf("Max = %d, want 1", k.Max())
	}
	if k.Due(&list.Entry{URL: "skip", State: list.Found}) {
		t.Error("skipped URL is due")
	}
	if !k.Due(&list.Entry{URL: "x", State: list.Found}) {
		t.Error("new URL not due")
	}
	k.Want = 0
	if k.Max() != fast.Batch {
		t.Errorf("Max = %d, want %d", k.Max(), fast.Batch)
	}
}

func TestNextDue(t *testing.T) {
	e := list.Entry{Level: 5, State: list.Downloaded, Modified: ago(time.Hour)}
	if got := NextDue(fast, &e); !got.IsZero() {
		t.Errorf("fast NextDue beyond level limit = %v, want zero", got)
	}
	if got, want := NextDue(slow, &e), e.Modified.Add(24*time.Hour); !got.Equal(want) {
		t.Errorf("slow NextDue = %v, want %v", got, want)
	}
	p := Profile{Window: 500 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour}
	if got, want := NextDue(p, &e), e.Modified.Add(336*time.Hour); !got.Equal(want) {
		t.Errorf("stale-first NextDue = %v, want %v", got, want)
	}
}

func TestCounter(t *testing.T) {
	es := []list.Entry{
		{URL: "new", Level: 0, State: list.Found},
		{URL: "fresh", Level: 0, State: list.Downloaded, Modified: ago(30 * time.Minute)},
		{URL: "hour-old", Level: 2, State: list.Downloaded, Modified: ago(2 * time.Hour)},
		{URL: "deep-new", Level: 5, State: list.Found},
		{URL: "deep-ancient", Level: 9, State: list.Downloaded, Modified: ago(400 * time.Hour)},
		{URL: "claimed", Level: 0, Spider: "slow", State: list.Claimed},
		{URL: "archived-day-old", Level: 1, State: list.Archived, Modified: ago(25 * time.Hour)},
		{URL: "disallowed-recently", Level: 1, State: list.Disallowed, Modified: ago(10 * time.Minute)},
	}
	tests := []struct {
		name  string
		p     Profile
		at    time.Time
		lines []list.Entry
		want  int
	}{
		{"fast now", fast, now, es, 3},                      // new, hour-old, archived-day-old
		{"slow now", slow, now, es, 4},                      // new, deep-new, deep-ancient (stale), archived-day-old
		{"fast in 2h", fast, now.Add(2 * time.Hour), es, 5}, // and fresh, disallowed-recently
		{"slow in 2h", slow, now.Add(2 * time.Hour), es, 4},
		{"slow in 24h", slow, now.Add(24 * time.Hour), es, 7}, // all but claimed
		{"empty list", fast, now, nil, 0},
	}
	for _, tt := range tests {
		c := NewCounter(tt.p, tt.at)
		k := &Picker{P: tt.p, Now: tt.at}
		picked := 0
		for i := range tt.lines {
			c.Add(&tt.lines[i])
			if k.Due(&tt.lines[i]) {
				picked++
			}
		}
		if c.Due() != tt.want {
			t.Errorf("%s: Due = %d, want %d", tt.name, c.Due(), tt.want)
		}
		if c.Due() != picked {
			t.Errorf("%s: Counter counts %d due, a Picker at the same instant finds %d", tt.name, c.Due(), picked)
		}
	}
}

// The change model (the line's due) sets the revisit interval within the
// profile's Window and Longest; a hint makes a line due at once; a line
// waiting for its first visit is stale from when it was found.
func TestDueWithModel(t *testing.T) {
	fastM := fast
	fastM.Longest = 24 * time.Hour
	slowM := slow
	slowM.Longest = slow.Stale
	copyAt := ago(3 * time.Hour)
	tests := []struct {
		name string
		p    Profile
		e    list.Entry
		want bool
	}{
		{"model says 2h: due at 3h", fastM, list.Entry{State: list.Downloaded, Modified: copyAt, Due: copyAt.Add(2 * time.Hour)}, true},
		{"model says 5h: not due at 3h", fastM, list.Entry{State: list.Downloaded, Modified: copyAt, Due: copyAt.Add(5 * time.Hour)}, false},
		{"model says 10m: the window holds it to 1h", fastM, list.Entry{Level: 1, State: list.Downloaded, Modified: ago(50 * time.Minute), Due: ago(40 * time.Minute)}, false},
		{"a start page due in 10m: due at 50m", fastM, list.Entry{State: list.Downloaded, File: "h/index.html", Modified: ago(50 * time.Minute), Due: ago(40 * time.Minute)}, true},
		{"a start page due in 10m: not at 5m", fastM, list.Entry{State: list.Downloaded, File: "h/index.html", Modified: ago(5 * time.Minute), Due: ago(5 * time.Minute).Add(10 * time.Minute)}, false},
		{"a start page's image due in 10m: the window", fastM, list.Entry{State: list.Downloaded, File: "h/logo.png", Modified: ago(50 * time.Minute), Due: ago(40 * time.Minute)}, false},
		{"model says a month: Longest makes it due at a day", fastM, list.Entry{State: list.Downloaded, Modified: ago(25 * time.Hour), Due: ago(25 * time.Hour).Add(720 * time.Hour)}, true},
		{"no Longest: the window, as without a model", fast, list.Entry{State: list.Downloaded, Modified: copyAt, Due: copyAt.Add(5 * time.Hour)}, true},
		{"slow, Shortest 1h: model says 2h, due at 3h", func() Profile { p := slowM; p.Shortest = time.Hour; return p }(), list.Entry{Level: 9, State: list.Downloaded, Modified: copyAt, Due: copyAt.Add(2 * time.Hour)}, true},
		{"slow, Shortest 1h: no model, the window", func() Profile { p := slowM; p.Shortest = time.Hour; return p }(), list.Entry{Level: 9, State: list.Downloaded, Modified: copyAt}, false},
		{"slow: a day at least", slowM, list.Entry{Level: 9, State: list.Downloaded, Modified: ago(20 * time.Hour), Due: ago(19 * time.Hour)}, false},
		{"slow: model says 3 days", slowM, list.Entry{Level: 9, State: list.Downloaded, Modified: ago(49 * time.Hour), Due: ago(49 * time.Hour).Add(72 * time.Hour)}, false},
		{"slow: never past the stale bound", slowM, list.Entry{Level: 9, State: list.Downloaded, Modified: ago(337 * time.Hour), Due: ago(337 * time.Hour).Add(9000 * time.Hour)}, true},
		{"hinted within the window: due at once", fastM, list.Entry{State: list.Downloaded, Modified: ago(time.Minute), Due: ago(time.Minute)}, true},
		{"hinted at the window, whatever the model", fastM, list.Entry{State: list.Downloaded, Modified: ago(time.Hour), Due: ago(time.Hour)}, true},
		{"hinted, Shortest 30m: at 40m", func() Profile { p := fastM; p.Shortest = 30 * time.Minute; return p }(), list.Entry{State: list.Downloaded, Modified: ago(40 * time.Minute), Due: ago(40 * time.Minute)}, true},
		{"hinted, Shortest 30m: at 20m too", func() Profile { p := fastM; p.Shortest = 30 * time.Minute; return p }(), list.Entry{State: list.Downloaded, Modified: ago(20 * time.Minute), Due: ago(20 * time.Minute)}, true},
		{"hinted beyond the level limit", fastM, list.Entry{Level: 4, State: list.Downloaded, Modified: ago(2 * time.Hour), Due: ago(2 * time.Hour)}, false},
		{"found 15 days ago: stale at any level", Profile{Window: time.Hour, MaxLevel: 1, Stale: 336 * time.Hour}, list.Entry{Level: 7, State: list.Found, Due: ago(360 * time.Hour)}, true},
		{"found a day ago beyond the limit", Profile{Window: time.Hour, MaxLevel: 1, Stale: 336 * time.Hour}, list.Entry{Level: 7, State: list.Found, Due: ago(24 * time.Hour)}, false},
	}
	for _, tt := range tests {
		if got := Due(tt.p, &tt.e, now); got != tt.want {
			t.Errorf("%s: Due = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestInterval(t *testing.T) {
	fastM := fast
	fastM.Longest, fastM.Shortest = 24*time.Hour, 30*time.Minute
	copyAt := ago(3 * time.Hour)
	model := func(d time.Duration) list.Entry {
		return list.Entry{Level: 1, State: list.Downloaded, File: "h/p.html", Modified: copyAt, Due: copyAt.Add(d)}
	}
	start := func(file string, d time.Duration) list.Entry {
		e := model(d)
		e.Level, e.File = 0, file
		return e
	}
	tests := []struct {
		name string
		p    Profile
		e    list.Entry
		want time.Duration
	}{
		{"a start page polled sooner: its own", fastM, start("h/index.html", 10*time.Minute), 10 * time.Minute},
		{"a start page's image: shortest", fastM, start("h/logo.png", 10*time.Minute), 30 * time.Minute},
		{"a start page at a month: longest", fastM, start("h/index.html", 720*time.Hour), 24 * time.Hour},
		{"never visited", fastM, list.Entry{State: list.Found, Due: ago(time.Minute)}, time.Hour},
		{"a copy without a model", fastM, list.Entry{State: list.Downloaded, Modified: copyAt}, time.Hour},
		{"hinted: shortest", fastM, list.Entry{State: list.Downloaded, Modified: copyAt, Due: copyAt}, 30 * time.Minute},
		{"model says 10m: shortest", fastM, model(10 * time.Minute), 30 * time.Minute},
		{"model says 40m", fastM, model(40 * time.Minute), 40 * time.Minute},
		{"model says 5h", fastM, model(5 * time.Hour), 5 * time.Hour},
		{"model says a month: longest", fastM, model(720 * time.Hour), 24 * time.Hour},
		{"no shortest nor longest: the window", fast, model(5 * time.Hour), time.Hour},
		{"longest past the stale bound: the bound", Profile{Window: 24 * time.Hour, Longest: 720 * time.Hour, Stale: 336 * time.Hour}, model(9000 * time.Hour), 336 * time.Hour},
	}
	for _, tt := range tests {
		if got := tt.p.Interval(&tt.e); got != tt.want {
			t.Errorf("%s: Interval = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Under a budget the order decides what is fetched: first visits that
// waited past the stale bound, then the other first visits and hinted
// lines, then the refreshes most likely to find a change, whatever their
// level.
func TestOrderWithModel(t *testing.T) {
	p := slow
	p.Longest, p.Window = p.Stale, time.Hour
	es := []list.Entry{
		{URL: "leaf-rarely", Level: 1, State: list.Downloaded, Modified: ago(20 * time.Hour), Due: ago(20 * time.Hour).Add(10 * time.Hour)}, // 2× its interval
		{URL: "hub-often", Level: 0, State: list.Downloaded, Modified: ago(3 * time.Hour), Due: ago(3 * time.Hour).Add(time.Hour)},          // 3×
		{URL: "deep-new-later", Level: 5, State: list.Found, Due: ago(time.Minute)},
		{URL: "deep-new-earlier", Level: 5, State: list.Found, Due: ago(time.Hour)},
		{URL: "announced", Level: 2, State: list.Downloaded, Modified: ago(2 * time.Hour), Due: ago(2 * time.Hour)},
		{URL: "waited-too-long", Level: 9, State: list.Found, Due: ago(400 * time.Hour)},
	}
	p.Batch = len(es)
	want := []string{"waited-too-long", "hub-often", "announced", "deep-new-earlier", "deep-new-later", "leaf-rarely"}
	if got := selectURLs(p, es); !slices.Equal(got, want) {
		t.Errorf("picked %v, want %v", got, want)
	}
}

func TestNextDueWithModel(t *testing.T) {
	p := fast
	p.Longest = 24 * time.Hour
	e := list.Entry{State: list.Downloaded, Modified: ago(time.Hour), Due: now.Add(time.Hour)}
	if got := NextDue(p, &e); !got.Equal(e.Due) {
		t.Errorf("NextDue = %v, want the model's %v", got, e.Due)
	}
	e.Due = e.Modified.Add(90 * 24 * time.Hour)
	if got, want := NextDue(p, &e), e.Modified.Add(24*time.Hour); !got.Equal(want) {
		t.Errorf("NextDue = %v, want Longest's %v", got, want)
	}
}

// While a first mirror is under way (a backlog of lines never visited),
// a copy is refreshed only if it is a start page or hinted, or stale. A
// start page's images and style sheets share its level but wait (a
// MediaWiki's Main Page has about twenty).
func TestDueDuringBacklog(t *testing.T) {
	p := slow
	old := ago(30 * time.Hour)
	tests := []struct {
		name string
		e    list.Entry
		want bool
	}{
		{"never visited", list.Entry{Level: 5, State: list.Found, Due: ago(time.Hour)}, true},
		{"start page past its window", list.Entry{Level: 0, State: list.Downloaded, Modified: old}, true},
		{"start page's copy named as a page", list.Entry{Level: 0, State: list.Downloaded, Modified: old, File: "h/wiki/Main_Page.html"}, true},
		{"start page's image waits", list.Entry{Level: 0, State: list.Downloaded, Modified: old, File: "h/w/logo.svg"}, false},
		{"start page's style sheet waits", list.Entry{Level: 0, State: list.Downloaded, Modified: old, File: "h/w/load.php?skin=vector{}.css"}, false},
		{"page past its window waits", list.Entry{Level: 2, State: list.Downloaded, Modified: old}, false},
		{"announced page", list.Entry{Level: 2, State: list.Downloaded, Modified: old, Due: old}, true},
		{"stale page", list.Entry{Level: 2, State: list.Downloaded, Modified: ago(400 * time.Hour)}, true},
	}
	for _, tt := range tests {
		k := &Picker{P: p, Now: now, Backlog: true}
		if got := k.Due(&tt.e); got != tt.want {
			t.Errorf("%s: Due = %v, want %v", tt.name, got, tt.want)
		}
		k = &Picker{P: p, Now: now}
		if !k.Due(&tt.e) {
			t.Errorf("%s: not due without a backlog", tt.name)
		}
	}
}

// The start page, due at its shortest interval, goes before every other
// line due but the first visits that waited past the stale bound: before
// the first visits of a first mirror, the stale copies and the refreshes
// due, or the pages it announces wait behind a batch of them (issue 21:
// a slow spider claimed the home page last of its batch while first
// visits were found, and polled it 17 s after the fast spider, past the
// fast window). Early, it waits like any other copy. Its images share its
// level, not its rank: they are refreshes like any other.
func TestStartPageFirst(t *testing.T) {
	p := Profile{Name: "slow", Window: 90 * time.Second, Shortest: 7500 * time.Millisecond, Longest: 90 * time.Second,
		MaxLevel: -1, Stale: 180 * time.Second, Batch: 50}
	home := func(age time.Duration) list.Entry {
		return list.Entry{URL: "home", Level: 0, State: list.Downloaded, Modified: ago(age), Due: ago(age).Add(7500 * time.Millisecond)}
	}
	es := []list.Entry{
		{URL: "article, never visited", Level: 3, State: list.Found, Due: ago(time.Minute)},
		{URL: "image, never visited", Level: 4, State: list.Found, Due: ago(2 * time.Minute)},
		{URL: "section, refresh due", Level: 1, State: list.Downloaded, Modified: ago(100 * time.Second)},
		{URL: "announced", Level: 1, State: list.Downloaded, Modified: ago(20 * time.Second), Due: ago(20 * time.Second)},
		{URL: "stale", Level: 5, State: list.Downloaded, Modified: ago(200 * time.Second)},
		withFile(list.Entry{URL: "home's logo, refresh due", Level: 0, State: list.Downloaded, Modified: ago(100 * time.Second)}, "h/logo.png"),
	}
	tests := []struct {
		name           string
		age            time.Duration
		backlog, early bool
		want           []string
	}{
		{"first visits wait", 8 * time.Second, true, false,
			[]string{"home", "announced", "article, never visited", "image, never visited", "stale"}},
		{"refreshes", 8 * time.Second, false, true,
			[]string{"home", "announced", "article, never visited", "image, never visited", "stale", "home's logo, refresh due", "section, refresh due"}},
		{"early", 5 * time.Second, false, true,
			[]string{"announced", "article, never visited", "image, never visited", "stale", "home's logo, refresh due", "section, refresh due", "home"}},
	}
	for _, tt := range tests {
		k := &Picker{P: p, Now: now, Backlog: tt.backlog, Early: tt.early}
		if got := pickAll(k, append([]list.Entry{home(tt.age)}, es...)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: picked %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A spider with a polite budget refreshes copies from half their interval
// on, after the lines due at their full interval; never while first
// visits wait, never a line out of its reach.
func TestEarly(t *testing.T) {
	p := fast
	p.Longest, p.Shortest, p.Batch = 24*time.Hour, 20*time.Minute, 10
	model := func(url string, age, interval time.Duration, level int) list.Entry {
		return list.Entry{URL: url, Level: level, State: list.Downloaded, Modified: ago(age), Due: ago(age).Add(interval)}
	}
	es := []list.Entry{
		model("at 0.4", 4*time.Hour, 10*time.Hour, 1),
		withFile(model("image at 0.4", 4*time.Hour, 10*time.Hour, 1), "h/logo.png"),
		withFile(model("style sheet at 0.7", 7*time.Hour, 10*time.Hour, 1), "h/site.css"),
		model("at 0.6", 6*time.Hour, 10*time.Hour, 1),
		model("at 0.9", 9*time.Hour, 10*time.Hour, 2),
		model("at 1.5", 3*time.Hour, 2*time.Hour, 3),
		model("too deep at 0.9", 9*time.Hour, 10*time.Hour, 4),
		model("hub, 0.75 of shortest", 15*time.Minute, 20*time.Minute, 0),
		{URL: "no model, half a window", Level: 1, State: list.Downloaded, Modified: ago(31 * time.Minute)},
		{URL: "no model, under half of shortest", Level: 1, State: list.Downloaded, Modified: ago(9 * time.Minute)},
		{URL: "hinted, younger than shortest", Level: 2, State: list.Downloaded, Modified: ago(19 * time.Minute), Due: ago(19 * time.Minute)},
		{URL: "claimed", Spider: "slow", Level: 0, State: list.Downloaded, Modified: ago(9 * time.Hour), Due: ago(9 * time.Hour).Add(10 * time.Hour)},
	}
	tests := []struct {
		name                    string
		early, unpaced, backlog bool
		want                    []string
	}{
		{"no budget to spare", false, false, false, []string{"hinted, younger than shortest", "at 1.5"}},
		{"early", true, false, false, []string{"hinted, younger than shortest", "at 1.5", "at 0.9", "hub, 0.75 of shortest", "style sheet at 0.7", "at 0.6", "no model, half a window"}},
		{"early, but first visits wait", true, false, true, []string{"hinted, younger than shortest"}},
		// No delay: as early, and every page (a copy whose file is not
		// known to be anything else) by shortest however long its
		// interval (from its drawn wait on: TestUnpacedWait); other
		// files only as early.
		{"unpaced", false, true, false, []string{"hinted, younger than shortest", "at 1.5", "at 0.9", "hub, 0.75 of shortest", "style sheet at 0.7", "at 0.6", "no model, half a window", "at 0.4"}},
		{"unpaced over early", true, true, false, []string{"hinted, younger than shortest", "at 1.5", "at 0.9", "hub, 0.75 of shortest", "style sheet at 0.7", "at 0.6", "no model, half a window", "at 0.4"}},
		{"unpaced, but first visits wait", false, true, true, []string{"hinted, younger than shortest"}},
	}
	for _, tt := range tests {
		k := &Picker{P: p, Now: now, Early: tt.early, Unpaced: tt.unpaced, Backlog: tt.backlog}
		if got := pickAll(k, es); !slices.Equal(got, tt.want) {
			t.Errorf("%s: picked %v, want %v", tt.name, got, tt.want)
		}
	}
	// The next line to become due, for an idle spider's sleep.
	for _, tt := range []struct {
		name           string
		early, unpaced bool
		want           time.Time
	}{
		{"early: half the interval after the copy", true, false, ago(time.Hour).Add(5 * time.Hour)},
		{"unpaced: its drawn wait after the copy", false, true, ago(time.Hour).Add(UnpacedWait("x", ago(time.Hour), 20*time.Minute))},
		{"unpaced, an image: half the interval", false, true, ago(time.Hour).Add(5 * time.Hour)},
	} {
		k := &Picker{P: p, Now: ago(50 * time.Minute), Early: tt.early, Unpaced: tt.unpaced}
		file := "h/x.html"
		if strings.Contains(tt.name, "image") {
			file = "h/x.PNG"
		}
		k.Due(&list.Entry{URL: "x", File: file, Level: 1, State: list.Downloaded, Modified: ago(time.Hour), Due: ago(time.Hour).Add(10 * time.Hour)})
		if got := k.Next(); !got.Equal(tt.want) {
			t.Errorf("%s: Next = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// While first visits wait, a copy that is past its early time is not due,
// and not about to be: Next does not name a time already past, which would
// have an idle spider look at the list again every few milliseconds until
// the backlog ended (issue 21: the fast spider ran 8,000 passes in 180 s).
// A start page's copy is due at its interval then, as without a backlog.
func TestNextDuringBacklog(t *testing.T) {
	p := Profile{Name: "fast", Window: 15 * time.Second, Shortest: 7500 * time.Millisecond, Longest: 90 * time.Second, MaxLevel: 2, Batch: 10}
	copyAt := ago(40 * time.Second)
	tests := []struct {
		name string
		e    list.Entry
		want time.Time
	}{
		{"page past its early time", list.Entry{URL: "a", Level: 1, State: list.Downloaded, Modified: copyAt, Due: copyAt.Add(60 * time.Second)}, time.Time{}},
		{"start page", list.Entry{URL: "home", Level: 0, State: list.Downloaded, Modified: ago(time.Second), Due: ago(time.Second).Add(7500 * time.Millisecond)},
			ago(time.Second).Add(7500 * time.Millisecond)},
		{"start page's image", list.Entry{URL: "logo", Level: 0, State: list.Downloaded, File: "h/logo.png", Modified: copyAt, Due: copyAt.Add(60 * time.Second)}, time.Time{}},
	}
	for _, tt := range tests {
		for _, early := range []bool{false, true} {
			k := &Picker{P: p, Now: now, Backlog: true, Early: early, Unpaced: !early}
			if k.Due(&tt.e) {
				t.Errorf("%s (early %v): due during the backlog", tt.name, early)
			}
			if got := k.Next(); !got.Equal(tt.want) {
				t.Errorf("%s (early %v): Next = %v, want %v", tt.name, early, got, tt.want)
			}
		}
	}
}

// Refreshes are ranked by the model's own mean time between changes, not
// by the interval the profile clamps it to: of two copies due at Longest,
// the page expected to change sooner goes first, whatever the level and
// the copies' ages; and every copy due at its interval goes before any
// copy due only early, however likely that one is to have changed.
func TestOrderByModelMean(t *testing.T) {
	p := slow
	p.Window, p.Longest, p.Batch = time.Hour, 24*time.Hour, 10
	model := func(url string, age, mean time.Duration, level int) list.Entry {
		return list.Entry{URL: url, Level: level, State: list.Downloaded, Modified: ago(age), Due: ago(age).Add(mean)}
	}
	tests := []struct {
		name  string
		early bool
		es    []list.Entry
		want  []string
	}{
		{"both at Longest: the likelier change first", false, []list.Entry{
			model("monthly, older copy, shallower", 26*time.Hour, 720*time.Hour, 1),
			model("every two days", 25*time.Hour, 48*time.Hour, 2),
		}, []string{"every two days", "monthly, older copy, shallower"}},
		{"a requisite presumed rare after a page of no model", false, []list.Entry{
			model("image presumed to change fortnightly", 48*time.Hour, 336*time.Hour, 1),
			{URL: "page, no model", Level: 3, State: list.Downloaded, Modified: ago(90 * time.Minute)},
		}, []string{"page, no model", "image presumed to change fortnightly"}},
		{"due at the interval before early, whatever the odds", true, []list.Entry{
			model("early, mean 10h, 9h old", 9*time.Hour, 10*time.Hour, 0),
			model("due at Longest, mean a month", 25*time.Hour, 720*time.Hour, 5),
		}, []string{"due at Longest, mean a month", "early, mean 10h, 9h old"}},
	}
	for _, tt := range tests {
		k := &Picker{P: p, Now: now, Early: tt.early}
		if got := pickAll(k, tt.es); !slices.Equal(got, tt.want) {
			t.Errorf("%s: picked %v, want %v", tt.name, got, tt.want)
		}
	}
}

// pickAll returns the URLs of the lines of es that k finds due, in k's
// order.
func pickAll(k *Picker, es []list.Entry) []string {
	var due []list.Entry
	for _, e := range es {
		if k.Due(&e) {
			due = append(due, e)
		}
	}
	slices.SortStableFunc(due, func(a, b list.Entry) int {
		switch {
		case k.Less(&a, &b):
			return -1
		case k.Less(&b, &a):
			return 1
		}
		return 0
	})
	var out []string
	for _, e := range due {
		out = append(out, e.URL)
	}
	return out
}

// withFile returns e with a copy in file.
func withFile(e list.Entry, file string) list.Entry {
	e.File = file
	return e
}

// With no delay a page falls due at a point drawn per page and copy
// between half of shortest and shortest: never sooner, never later, the
// same for the same page and copy, another for the next copy, and spread
// over the whole span for the pages of a site.
func TestUnpacedWait(t *testing.T) {
	const shortest = 30 * time.Minute
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	p := Profile{Name: "slow", Window: 24 * time.Hour, Shortest: shortest, MaxLevel: -1, Batch: 50}
	var quarters [4]int
	moved := 0
	const n = 4000
	for i := range n {
		url := fmt.Sprintf("http://example.org/article/%d", i)
		w := UnpacedWait(url, at, shortest)
		if w < shortest/2 || w >= shortest || w%time.Microsecond != 0 {
			t.Fatalf("%s: wait %v, want whole microseconds in [%v, %v)", url, w, shortest/2, shortest)
		}
		if UnpacedWait(url, at, shortest) != w {
			t.Fatalf("%s: two draws for one copy", url)
		}
		if UnpacedWait(url, at.Add(time.Second), shortest) != w {
			moved++
		}
		// A page seen not to change in a day is due for a spider with
		// no delay at its wait exactly.
		e := list.Entry{URL: url, Level: 2, State: list.Downloaded, File: "h/a.html", Modified: at, Due: at.Add(24 * time.Hour)}
		if k := (&Picker{P: p, Now: at.Add(w), Unpaced: true}); !k.Due(&e) {
			t.Fatalf("%s: not due after its wait %v", url, w)
		}
		if k := (&Picker{P: p, Now: at.Add(w - time.Microsecond), Unpaced: true}); k.Due(&e) || !k.Next().Equal(at.Add(w)) {
			t.Fatalf("%s: due before its wait %v, or next at %v", url, w, k.Next())
		}
		quarters[(w-shortest/2)*4/(shortest/2)]++
	}
	for q, c := range quarters {
		if c < n/4*8/10 || c > n/4*12/10 {
			t.Errorf("quarter %d of the span holds %d of %d waits: %v", q, c, n, quarters)
		}
	}
	if moved < n*9/10 {
		t.Errorf("the next copy's wait differs for %d of %d pages", moved, n)
	}
	// The draw as internal/pglist computes it in SQL: the first 16 bits of
	// md5("http://example.org/article/0 1795255200") are 0xdff3.
	if got, want := UnpacedWait("http://example.org/article/0", at, shortest), 15*time.Minute+time.Duration(int64(0xdff3)*(15*60*1_000_000)/(1<<16))*time.Microsecond; got != want {
		t.Errorf("wait %v, want %v", got, want)
	}
}

// A start page the crawl polls sooner than shortest, as its list of
// announcements moves faster (its due a second or a few after its copy),
// is due at that poll and not earlier, whichever the picker: an early or
// unpaced picker brings a poll forward to half of shortest at most. At a
// one-second poll, halving it had a spider with no delay poll a start
// page 90 times a second, the list's times being whole seconds.
func TestStartPagePolledSooner(t *testing.T) {
	p := Profile{Name: "fast", Window: 15 * time.Second, Shortest: 7500 * time.Millisecond, Longest: 90 * time.Second, MaxLevel: 2, Batch: 10}
	at := now.Add(-time.Hour)
	tests := []struct {
		name                string
		span                time.Duration // its due after its copy
		plain, early, drawn time.Duration // when each picker takes it after its copy
	}{
		{"polled a second later", time.Second, time.Second, time.Second, time.Second},
		{"polled sooner, under half of shortest", 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second},
		{"polled sooner, over half of shortest", 5 * time.Second, 5 * time.Second, 3750 * time.Millisecond, 3750 * time.Millisecond},
		{"polled at shortest", 7500 * time.Millisecond, 7500 * time.Millisecond, 3750 * time.Millisecond, 3750 * time.Millisecond},
		{"a model's twenty seconds", 20 * time.Second, 20 * time.Second, 10 * time.Second, UnpacedWait("home", at, 7500*time.Millisecond)},
	}
	for _, tt := range tests {
		e := list.Entry{URL: "home", Level: 0, State: list.Downloaded, File: "h/index.html", Modified: at, Due: at.Add(tt.span)}
		for _, m := range []struct {
			name           string
			early, unpaced bool
			want           time.Duration
		}{{"plain", false, false, tt.plain}, {"early", true, false, tt.early}, {"unpaced", false, true, tt.drawn}} {
			k := &Picker{P: p, Now: at.Add(m.want - time.Millisecond), Early: m.early, Unpaced: m.unpaced}
			if k.Due(&e) {
				t.Errorf("%s, %s picker: due %v after its copy, want from %v", tt.name, m.name, m.want-time.Millisecond, m.want)
			} else if got := k.Next(); !got.Equal(at.Add(m.want)) {
				t.Errorf("%s, %s picker: next at %v after its copy, want %v", tt.name, m.name, got.Sub(at), m.want)
			}
			if k := (&Picker{P: p, Now: at.Add(m.want), Early: m.early, Unpaced: m.unpaced}); !k.Due(&e) {
				t.Errorf("%s, %s picker: not due %v after its copy", tt.name, m.name, m.want)
			}
		}
	}
}
