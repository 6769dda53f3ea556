package account

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

var (
	now  = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	fast = claim.Profile{Name: "fast", Window: time.Hour, Longest: 24 * time.Hour, MaxLevel: 3}
	slow = claim.Profile{Name: "slow", Window: 24 * time.Hour, Longest: 336 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour}
)

func ago(d time.Duration) time.Time { return now.Add(-d) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCurrentShare(t *testing.T) {
	e1 := math.Exp(-1)
	tests := []struct {
		name  string
		lines []list.Entry
		want  float64
	}{
		{"no copy", []list.Entry{{Level: 0, State: list.Found, URL: "http://h/"}}, 0},
		{"fresh copy, model", []list.Entry{{File: "h/a", State: list.Downloaded, Modified: now, Due: now.Add(2 * time.Hour), URL: "http://h/a"}}, 1},
		{"age = model interval", []list.Entry{{File: "h/a", State: list.Downloaded, Modified: ago(2 * time.Hour), Due: now, URL: "http://h/a"}}, e1},
		{"no model: the shortest window", []list.Entry{{File: "h/a", State: list.Downloaded, Modified: ago(time.Hour), URL: "http://h/a"}}, e1},
		{"model under the window: the window", []list.Entry{{File: "h/a", State: list.Downloaded, Modified: ago(time.Hour), Due: ago(time.Hour - time.Minute), URL: "http://h/a"}}, e1},
		{"model beyond the stale bound: the bound", []list.Entry{{File: "h/a", State: list.Downloaded, Modified: ago(336 * time.Hour), Due: now.Add(10000 * time.Hour), URL: "http://h/a"}}, e1},
		{"hinted: not current", []list.Entry{{File: "h/a", State: list.Downloaded, Modified: now, Due: now, URL: "http://h/a"}}, 0},
		{"half without copy", []list.Entry{
			{File: "h/a", State: list.Downloaded, Modified: now, Due: now.Add(time.Hour), URL: "http://h/a"},
			{State: list.Found, Level: 1, URL: "http://h/b"}}, 0.5},
		{"archived and disallowed leave the count", []list.Entry{
			{File: "h/a", State: list.Downloaded, Modified: now, Due: now.Add(time.Hour), URL: "http://h/a"},
			{File: "h/b", State: list.Archived, Modified: now, URL: "http://h/b"},
			{State: list.Disallowed, Modified: now, URL: "http://h/c"}}, 1},
		{"error with a copy keeps it", []list.Entry{{File: "h/a", State: list.Error, Modified: ago(time.Hour), URL: "http://h/a"}}, e1},
	}
	for _, tt := range tests {
		ta := New([]claim.Profile{fast, slow}, now)
		for i := range tt.lines {
			ta.Add(&tt.lines[i])
		}
		if got := ta.Hosts()["h"].Current; !near(got, tt.want) {
			t.Errorf("%s: current share %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWithinAndHosts(t *testing.T) {
	ta := New([]claim.Profile{fast, slow}, now)
	for _, e := range []list.Entry{
		{Level: 0, URL: "http://a/"}, {Level: 3, URL: "http://a/x"}, {Level: 4, URL: "http://a/y"},
		{Level: 9, URL: "http://b:8080/z"},
	} {
		ta.Add(&e)
	}
	hs := ta.Hosts()
	if a := hs["a"]; a.Lines != 3 || a.Within[0] != 2 || a.Within[1] != 3 {
		t.Errorf("host a: %+v, want 3 lines, 2 within fast, 3 within slow", a)
	}
	if b := hs["b:8080"]; b.Lines != 1 || b.Within[0] != 0 || b.Within[1] != 1 {
		t.Errorf("host b:8080: %+v", b)
	}
}

func TestAges(t *testing.T) {
	ta := New([]claim.Profile{fast}, now)
	for i := 1; i <= 100; i++ {
		e := list.Entry{File: "h/p", State: list.Downloaded, Level: 1, Modified: ago(time.Duration(i) * time.Minute), URL: "http://h/p"}
		ta.Add(&e)
	}
	deep := list.Entry{File: "h/d", State: list.Downloaded, Level: 9_000_000, Modified: ago(time.Minute), URL: "http://h/d"}
	ta.Add(&deep)
	a := ta.Hosts()["h"].Ages
	if len(a) != 2 || a[1].Level != 9_000_000 || a[1].Copies != 1 || a[1].MaxSec != 60 {
		t.Errorf("a stray deep line's ages: %+v", a)
	}
	if len(a) != 2 || a[0].Level != 1 || a[0].Copies != 100 {
		t.Fatalf("ages %+v", a)
	}
	within := func(got, want float64) bool { return math.Abs(got-want) <= 0.07*want }
	if !within(a[0].MedianSec, 50*60) || !within(a[0].P90Sec, 90*60) || a[0].MaxSec != 100*60 {
		t.Errorf("median %v p90 %v max %v, want about 3000, 5400, exactly 6000", a[0].MedianSec, a[0].P90Sec, a[0].MaxSec)
	}
}

// lines is a Tally's Lines for the profiles fast and slow, every line
// counted once a window (no model yet).
func lines(within []int, n int) Lines {
	return Lines{Lines: n, Within: within, PerHour: []float64{float64(within[0]), float64(within[1]) / 24}}
}

func TestPromises(t *testing.T) {
	sec := NewBudget(time.Second, "spiders", 0, 0)
	// 4,212 lines within fast's levels, 4,000 of them copies the model
	// expects to change once a day (fast's longest): 212 + 4000/24 an hour.
	learnt := Lines{Lines: 4212, Within: []int{4212, 4212}, PerHour: []float64{212 + 4000.0/24, 4212.0 / 24}}
	tests := []struct {
		name string
		b    Budget
		l    Lines
		want []Promise
	}{
		{"fits", sec, lines([]int{3000, 50000}, 50000), []Promise{
			{Profile: "fast", Kind: "window", MaxLevel: 3, URLs: 3000, EverySec: 3600, PerHour: 3000, WindowPerHour: 3000, Fits: true},
			{Profile: "slow", Kind: "window", MaxLevel: -1, URLs: 50000, EverySec: 86400, PerHour: 50000.0 / 24, WindowPerHour: 50000.0 / 24, Fits: true},
			{Profile: "slow", Kind: "stale", MaxLevel: -1, URLs: 50000, EverySec: 336 * 3600, PerHour: 50000.0 / 336, WindowPerHour: 50000.0 / 336, Fits: true}}},
		{"fast over by 17%", sec, lines([]int{4212, 4212}, 4212), []Promise{
			{Profile: "fast", Kind: "window", MaxLevel: 3, URLs: 4212, EverySec: 3600, PerHour: 4212, WindowPerHour: 4212, Over: 0.17},
			{Profile: "slow", Kind: "window", MaxLevel: -1, URLs: 4212, EverySec: 86400, PerHour: 175.5, WindowPerHour: 175.5, Fits: true},
			{Profile: "slow", Kind: "stale", MaxLevel: -1, URLs: 4212, EverySec: 336 * 3600, PerHour: 4212.0 / 336, WindowPerHour: 4212.0 / 336, Fits: true}}},
		{"the same URLs, most seen to change daily: fits", sec, learnt, []Promise{
			{Profile: "fast", Kind: "window", MaxLevel: 3, URLs: 4212, EverySec: 3600, PerHour: 212 + 4000.0/24, WindowPerHour: 4212, Fits: true},
			{Profile: "slow", Kind: "window", MaxLevel: -1, URLs: 4212, EverySec: 86400, PerHour: 175.5, WindowPerHour: 175.5, Fits: true},
			{Profile: "slow", Kind: "stale", MaxLevel: -1, URLs: 4212, EverySec: 336 * 3600, PerHour: 4212.0 / 336, WindowPerHour: 4212.0 / 336, Fits: true}}},
		{"Crawl-delay binds", NewBudget(time.Second, "config", 10*time.Second, 0), lines([]int{400, 400}, 400), []Promise{
			{Profile: "fast", Kind: "window", MaxLevel: 3, URLs: 400, EverySec: 3600, PerHour: 400, WindowPerHour: 400, Over: 400.0/360 - 1},
			{Profile: "slow", Kind: "window", MaxLevel: -1, URLs: 400, EverySec: 86400, PerHour: 400.0 / 24, WindowPerHour: 400.0 / 24, Fits: true},
			{Profile: "slow", Kind: "stale", MaxLevel: -1, URLs: 400, EverySec: 336 * 3600, PerHour: 400.0 / 336, WindowPerHour: 400.0 / 336, Fits: true}}},
		{"no delay: always fits", NewBudget(0, "spiders", 0, 0), lines([]int{1e7, 1e7}, 1e7), []Promise{
			{Profile: "fast", Kind: "window", MaxLevel: 3, URLs: 1e7, EverySec: 3600, PerHour: 1e7, WindowPerHour: 1e7, Fits: true},
			{Profile: "slow", Kind: "window", MaxLevel: -1, URLs: 1e7, EverySec: 86400, PerHour: 1e7 / 24.0, WindowPerHour: 1e7 / 24.0, Fits: true},
			{Profile: "slow", Kind: "stale", MaxLevel: -1, URLs: 1e7, EverySec: 336 * 3600, PerHour: 1e7 / 336.0, WindowPerHour: 1e7 / 336.0, Fits: true}}},
	}
	for _, tt := range tests {
		got := Promises([]claim.Profile{fast, slow}, tt.l, tt.b)
		if len(got) != len(tt.want) {
			t.Fatalf("%s: %d promises, want %d", tt.name, len(got), len(tt.want))
		}
		for i := range got {
			g, w := got[i], tt.want[i]
			if g.Profile != w.Profile || g.Kind != w.Kind || g.MaxLevel != w.MaxLevel || g.URLs != w.URLs || g.EverySec != w.EverySec ||
				!near(g.PerHour, w.PerHour) || !near(g.WindowPerHour, w.WindowPerHour) || g.Fits != w.Fits || !near(g.Over, w.Over) {
				t.Errorf("%s: promise %d = %+v, want %+v", tt.name, i, g, w)
			}
		}
	}
}

// A Tally counts a visit per line and revisit interval for each profile
// (claim.Profile.Interval), and for the profiles together a visit per
// line and the shortest of their intervals.
func TestPerHour(t *testing.T) {
	fastS, slowS := fast, slow
	fastS.Shortest, slowS.Shortest = 30*time.Minute, 30*time.Minute
	ta := New([]claim.Profile{fastS, slowS}, now)
	copyAt := ago(time.Hour)
	for _, e := range []list.Entry{
		{Level: 0, URL: "http://a/", Due: now},                       // never visited: once a window
		{Level: 1, URL: "http://a/1", File: "a/1", Modified: copyAt}, // no model: once a window
		{Level: 1, URL: "http://a/hub", File: "a/hub", Modified: copyAt, Due: copyAt.Add(10 * time.Minute)},
		{Level: 1, URL: "http://a/hinted", File: "a/hinted", Modified: copyAt, Due: copyAt},
		{Level: 2, URL: "http://a/6h", File: "a/6h", Modified: copyAt, Due: copyAt.Add(6 * time.Hour)},
		{Level: 3, URL: "http://a/month", File: "a/month", Modified: copyAt, Due: copyAt.Add(720 * time.Hour)},
		{Level: 4, URL: "http://a/deep", File: "a/deep", Modified: copyAt, Due: copyAt.Add(720 * time.Hour)},
	} {
		ta.Add(&e)
	}
	a := ta.Hosts()["a"]
	// fast: two once an hour, the hub and the hinted page every 30m, one
	// every 6h, one at fast's longest (24h); the deep one is slow's.
	if want := 2 + 4 + 1.0/6 + 1.0/24; !near(a.PerHour[0], want) {
		t.Errorf("fast: %v requests/h, want %v", a.PerHour[0], want)
	}
	// slow: its window (24h) without a model, 30m, 30m, 6h, and its
	// longest (336h) for the two a month.
	if want := 2.0/24 + 4 + 1.0/6 + 2.0/336; !near(a.PerHour[1], want) {
		t.Errorf("slow: %v requests/h, want %v", a.PerHour[1], want)
	}
	// Together: fast's intervals where it reaches, slow's beyond.
	if want := 2 + 4 + 1.0/6 + 1.0/24 + 1.0/336; !near(a.Together, want) {
		t.Errorf("together: %v requests/h, want %v", a.Together, want)
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(time.Second, "spiders", 0, 0)
	if b.PerHour != 3600 || b.PerDay != 86400 || b.Unlimited {
		t.Errorf("1s: %+v", b)
	}
	if b := NewBudget(2*time.Second, "config", 5*time.Second, 0); b.DelaySec != 5 || b.PerHour != 720 || !strings.Contains(b.Text(), "Crawl-delay 5s") {
		t.Errorf("Crawl-delay 5s over 2s: %+v %q", b, b.Text())
	}
	if b := NewBudget(0, "spiders", 0, 0); !b.Unlimited || b.PerHour != 0 {
		t.Errorf("no delay: %+v", b)
	}
	// Each request starts the delay after the previous answer ended: a
	// host answering in 200 ms at a 1 s delay takes 3,000 an hour.
	for _, tt := range []struct {
		delay, crawl, answer time.Duration
		perHour              float64
		why                  string
	}{
		{time.Second, 0, 200 * time.Millisecond, 3000, "delay 1s after answers of 200ms"},
		{50 * time.Millisecond, 0, 25 * time.Millisecond, 48000, "delay 50ms after answers of 25ms"},
		{time.Second, 4 * time.Second, time.Second, 720, "robots.txt Crawl-delay 4s after answers of 1s"},
		{time.Second, 0, 1234567 * time.Nanosecond, 3600 / 1.001234567, "delay 1s after answers of 1ms"},
		{time.Second, 0, -time.Second, 3600, "delay 1s"}, // a clock stepped back: no answer time
	} {
		b := NewBudget(tt.delay, "spiders", tt.crawl, tt.answer)
		if !near(b.PerHour, tt.perHour) || b.PerDay != 24*b.PerHour || b.Why() != tt.why {
			t.Errorf("delay %v, Crawl-delay %v, answers %v: %v/h, %q; want %v/h, %q", tt.delay, tt.crawl, tt.answer, b.PerHour, b.Why(), tt.perHour, tt.why)
		}
	}
	if b := NewBudget(0, "spiders", 0, time.Second); !b.Unlimited || b.PerHour != 0 {
		t.Errorf("no delay, slow answers: %+v", b)
	}
}

func TestPromiseText(t *testing.T) {
	b := NewBudget(time.Second, "spiders", 0, 0)
	p := Promises([]claim.Profile{fast}, Lines{Lines: 4210, Within: []int{4210}, PerHour: []float64{4210}}, b)[0]
	want := "fast promises 4,210 URLs (level ≤ 3) every 1h = 4,210 requests/h; host example.org allows 3,600/h (delay 1s): does not fit by 17%; raise the rate (--delay), lower --max-level, or lengthen --window"
	if got := p.Text("example.org", b); got != want {
		t.Errorf("text\n got %s\nwant %s", got, want)
	}
	p = Promises([]claim.Profile{fast}, Lines{Lines: 1800, Within: []int{1800}, PerHour: []float64{1800}}, b)[0]
	if got := p.Text("h", b); !strings.HasSuffix(got, ": fits (50% of the budget)") {
		t.Errorf("fitting text %q", got)
	}
	p = Promises([]claim.Profile{fast}, Lines{Lines: 4210, Within: []int{4210}, PerHour: []float64{1310}}, b)[0]
	want = "fast promises 4,210 URLs (level ≤ 3) every 1h, or as the change model expects from 1h to 24h = 1,310 requests/h (every 1h each: 4,210); host example.org allows 3,600/h (delay 1s): fits (36% of the budget)"
	if got := p.Text("example.org", b); got != want {
		t.Errorf("text with a model\n got %s\nwant %s", got, want)
	}
	if over := Together(4000, b); !near(over, 4000.0/3600-1) {
		t.Errorf("together over by %v, want 11%%", over)
	}
	if over := Together(3600, b); over != 0 {
		t.Errorf("together at the budget: over by %v, want 0", over)
	}
	// A page seen to change often is polled every shortest: lengthening
	// the window alone may not be enough.
	fastS := fast
	fastS.Shortest = 30 * time.Minute
	p = Promises([]claim.Profile{fastS}, Lines{Lines: 4210, Within: []int{4210}, PerHour: []float64{4500}}, b)[0]
	want = "fast promises 4,210 URLs (level ≤ 3) every 1h, or as the change model expects from 30m to 24h = 4,500 requests/h (every 1h each: 4,210); host example.org allows 3,600/h (delay 1s): does not fit by 25%; raise the rate (--delay), lower --max-level, or lengthen --window or --shortest"
	if got := p.Text("example.org", b); got != want {
		t.Errorf("text with a shortest\n got %s\nwant %s", got, want)
	}
}

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Count(0), "0"}, {Count(999), "999"}, {Count(1000), "1,000"}, {Count(4210.4), "4,210"}, {Count(1234567), "1,234,567"},
		{Duration(1), "1s"}, {Duration(10), "10s"}, {Duration(3600), "1h"}, {Duration(90), "1m30s"}, {Duration(336 * 3600), "336h"},
		{Counted(1, "URL", "URLs"), "1 URL"}, {Counted(0, "URL", "URLs"), "0 URLs"}, {Counted(4210, "URL", "URLs"), "4,210 URLs"}, {Duration(0.5), "500ms"}, {Duration(0.000561234), "561µs"}, {Duration(0.0294), "29ms"}, {Duration(7.5), "7.5s"}, {Duration(59.97), "1m"}, {Duration(12.04), "12s"}, {Duration(2*3600 + 43*60 + 12), "2h43m"}, {Duration(29*3600 + 48), "29h"}, {Percent(0.17), "17%"}, {Percent(0.001), "1%"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestHistories(t *testing.T) {
	hs := NewHistories(time.Hour, now, 1)
	for _, r := range []meta.Record{
		{URL: "http://h/a", Attempts: 10, Checks: 8, Changes: 2, Lag: 10 * time.Minute},
		{URL: "http://h/b", Attempts: 5, Checks: 4, Changes: 0, Lag: 2 * time.Hour},
		{URL: "http://h/c", Attempts: 1, Announced: ago(2 * time.Hour)},
		{URL: "http://h/d", Attempts: 1, Announced: ago(time.Minute)},
		{URL: "http://g/", Attempts: 3, Checks: 2, Changes: 1},
	} {
		hs.Add(&r)
	}
	h := hs.Hosts()["h"]
	want := History{Records: 4, Every: 1, Requests: 17, Checks: 12, Changes: 2, PerChange: 8.5, Measured: 2, InWindow: 1, Late: 1, Waiting: 1}
	if h != want {
		t.Errorf("host h: %+v\nwant %+v", h, want)
	}
	if g := hs.Hosts()["g"]; g.PerChange != 3 {
		t.Errorf("host g: %+v", g)
	}
	if s := NewHistories(time.Hour, now, 7); s.every != 7 {
		t.Error("every")
	}
}
