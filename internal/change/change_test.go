package change

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
)

func TestObserveKeepsTheLastVisits(t *testing.T) {
	var rec meta.Record
	for i := range Keep + 5 {
		rec = Observe(rec, time.Duration(i+1)*time.Minute, i%2 == 0)
	}
	rec = Observe(rec, 0, true) // no interval: nothing to learn
	if len(rec.Visits) != Keep || rec.Checks != Keep+5 || rec.Changes != (Keep+6)/2 {
		t.Fatalf("visits %d, checks %d, changes %d", len(rec.Visits), rec.Checks, rec.Changes)
	}
	if rec.Visits[0].After != 6*60 || rec.Visits[Keep-1].After != uint32(Keep+5)*60 {
		t.Errorf("kept visits %v … %v, want the last %d", rec.Visits[0], rec.Visits[Keep-1], Keep)
	}
}

func TestRateEdges(t *testing.T) {
	hour := uint32(3600)
	tests := []struct {
		name   string
		visits []meta.Visit
		want   float64 // changes per hour
	}{
		{"no visits", nil, 0},
		{"never changed over 4 hours", []meta.Visit{{After: hour}, {After: 3 * hour}}, 0.5 / 4},
		{"changed at each of 2 hourly visits", []meta.Visit{{After: hour, Changed: true}, {After: hour, Changed: true}}, math.Log(5)},
		// One change in two hourly visits: the MLE solves 1/(e^λ−1) = 1.
		{"one of two hourly visits changed", []meta.Visit{{After: hour, Changed: true}, {After: hour}}, math.Log(2)},
	}
	for _, tt := range tests {
		if got := Rate(tt.visits) * 3600; math.Abs(got-tt.want) > 1e-6*max(1, tt.want) {
			t.Errorf("%s: %.6f changes an hour, want %.6f", tt.name, got, tt.want)
		}
	}
}

// Visited at irregular (exponential) intervals, a page changing as a
// Poisson process gets its rate back within a few percent.
func TestRateRecoversPoissonRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rate := range []float64{1.0 / 600, 1.0 / 3600, 1.0 / 86400} { // per second
		var visits []meta.Visit
		for range 4000 {
			gap := rng.ExpFloat64() / rate // visits about as often as changes
			changed := rng.Float64() < -math.Expm1(-rate*gap)
			visits = append(visits, meta.Visit{After: uint32(max(gap, 1)), Changed: changed})
		}
		if got := Rate(visits); math.Abs(got/rate-1) > 0.08 {
			t.Errorf("rate %.3g/s estimated as %.3g/s", rate, got)
		}
	}
}

func TestIntervalAndNext(t *testing.T) {
	if got := Interval(nil, time.Hour); got != time.Hour {
		t.Errorf("no visits: %v, want the prior", got)
	}
	day := uint32(86400)
	never := []meta.Visit{{After: day}, {After: day}}
	if got := Interval(never, time.Hour); got != 4*24*time.Hour {
		t.Errorf("unchanged over two days: %v, want four days", got)
	}
	if !Known(never, time.Hour) || Known(nil, time.Hour) {
		t.Error("Known: want true after two days unchanged, false with no visits")
	}
	// Visits seconds apart that saw no change are no evidence of a page
	// changing every few seconds; one change seen is.
	quick := []meta.Visit{{After: 3}, {After: 2}}
	if Known(quick, time.Hour) || !Known(quick, 10*time.Second) {
		t.Error("Known: unchanged over 5s, want false for a prior of an hour, true for one of 10s")
	}
	if !Known(append(quick, meta.Visit{After: 5, Changed: true}), time.Hour) {
		t.Error("Known: a change seen, want true")
	}
	at := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	var sum float64
	const n = 20000
	for i := range n {
		j := Jitter("http://h/"+string(rune('a'+i%26)), at.Add(time.Duration(i)*time.Second))
		if j < 0.5 {
			t.Fatalf("jitter %v below 0.5", j)
		}
		sum += j
	}
	if mean := sum / n; math.Abs(mean-1) > 0.03 {
		t.Errorf("mean jitter %.3f, want 1", mean)
	}
}

// Next spreads the part of the mean interval beyond the floor, and keeps
// a page that changes more often than the floor at the floor exactly.
func TestNext(t *testing.T) {
	at := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	const u = "http://h/a"
	j := Jitter(u, at)
	day := uint32(86400)
	never := []meta.Visit{{After: day}, {After: day}} // a mean of four days
	always := []meta.Visit{{After: 60, Changed: true}, {After: 60, Changed: true}}
	for _, tc := range []struct {
		name   string
		visits []meta.Visit
		prior  time.Duration
		floor  time.Duration
		want   time.Duration
	}{
		{"no visits, the prior jittered", nil, time.Hour, 0, time.Duration(float64(time.Hour) * j)},
		{"unchanged over two days, no floor", never, time.Hour, 0, time.Duration(float64(4*24*time.Hour) * j)},
		{"unchanged over two days, the part over the floor jittered", never, time.Hour, time.Hour,
			time.Hour + time.Duration(float64(4*24*time.Hour-time.Hour)*j)},
		{"changes every visit a minute apart: the floor", always, time.Hour, 30 * time.Minute, 30 * time.Minute},
		{"the prior below the floor: the floor", nil, time.Minute, 30 * time.Minute, 30 * time.Minute},
	} {
		if got := Next(u, at, tc.visits, tc.prior, tc.floor).Sub(at); got != tc.want {
			t.Errorf("%s: due after %v, want %v", tc.name, got, tc.want)
		}
	}
	// Over many pages the mean interval is kept, and none comes before the
	// floor plus half the rest.
	const mean, floor, n = 4 * time.Hour, time.Hour, 20000
	visits := []meta.Visit{{After: uint32(mean.Seconds() / 2)}} // never changed: the mean is twice the time watched
	var sum float64
	for i := range n {
		d := Next("http://h/"+strconv.Itoa(i), at, visits, time.Hour, floor).Sub(at)
		if d < floor+(mean-floor)/2 {
			t.Fatalf("page %d due after %v, before the floor plus half the rest", i, d)
		}
		sum += d.Seconds()
	}
	if got := sum / n; math.Abs(got-mean.Seconds()) > 0.03*mean.Seconds() {
		t.Errorf("mean interval %.0fs, want %.0fs", got, mean.Seconds())
	}
}

func TestAnnounced(t *testing.T) {
	tests := []struct {
		name        string
		before, now []string
		want        []string
	}{
		{"first visit", nil, []string{"a", "b"}, nil},
		{"same order", []string{"a", "b", "c"}, []string{"a", "b", "c"}, nil},
		{"new link", []string{"a", "b"}, []string{"n", "a", "b"}, []string{"n"}},
		{"bumped to the top", []string{"a", "b", "c", "d"}, []string{"c", "a", "b", "d"}, []string{"c"}},
		{"removed above: others shift, no news", []string{"a", "b", "c"}, []string{"a", "c"}, nil},
		{"one moved down: those it passed count as moved up", []string{"a", "b", "c"}, []string{"b", "c", "a"}, []string{"b", "c"}},
		{"repeats count once", []string{"a", "b"}, []string{"b", "a", "b", "a"}, []string{"b"}},
	}
	for _, tt := range tests {
		prev := ""
		if tt.before != nil {
			prev = Links(tt.before)
		}
		if got := Announced(prev, tt.now); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Announced("not base64!", []string{"a"}); got != nil {
		t.Errorf("unreadable order: %q", got)
	}
}

func FuzzAnnounced(f *testing.F) {
	f.Add("a b c", "c a b")
	f.Add("sabcx", "snmkx")
	f.Fuzz(func(t *testing.T, before, now string) {
		b, n := fields(before), fields(now)
		got := Announced(Links(b), n)
		if len(got) > len(n) {
			t.Fatalf("announced %d of %d links", len(got), len(n))
		}
		for _, u := range got {
			if !slices.Contains(n, u) {
				t.Fatalf("announced %q, not a link of the page", u)
			}
		}
		if len(b) > 0 && len(b) <= MaxLinks && slices.Equal(b, n) && got != nil {
			t.Fatalf("same links announced %q", got)
		}
		// Nothing turned over where nothing changed, nor where the page
		// announced nothing.
		if over := TurnedOver(Links(b), n); over && (slices.Equal(b, n) || len(got) == 0) {
			t.Fatalf("turned over: %q to %q", b, n)
		}
	})
}

func fields(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// A visit that found an announced change counts as caught, but teaches
// the model nothing: its visits and so its rate are as before.
func TestHeardCountsWithoutTeaching(t *testing.T) {
	rec := Observe(meta.Record{}, time.Hour, false)
	got := Heard(rec)
	if got.Checks != rec.Checks+1 || got.Changes != rec.Changes+1 {
		t.Errorf("heard: checks %d changes %d, want %d and %d", got.Checks, got.Changes, rec.Checks+1, rec.Changes+1)
	}
	if !slices.Equal(got.Visits, rec.Visits) || Rate(got.Visits) != Rate(rec.Visits) {
		t.Errorf("heard changed the model: visits %v, want %v", got.Visits, rec.Visits)
	}
}

// page is a start page's links with latest as its list of latest pages,
// between the navigation and a footer link.
func page(latest ...string) []string {
	return append(append([]string{"/", "/s/", "/t/"}, latest...), "/about")
}

func TestTurnedOver(t *testing.T) {
	tests := []struct {
		name        string
		before, now []string
		want        bool
	}{
		{"first visit", nil, page("a", "b", "c"), false},
		{"as before", page("a", "b", "c"), page("a", "b", "c"), false},
		{"one new, the oldest dropped", page("a", "b", "c"), page("n", "a", "b"), false},
		{"two new, the old top below them", page("a", "b", "c"), page("n", "m", "a"), false},
		{"all new: turned over", page("a", "b", "c"), page("n", "m", "k"), true},
		{"the old bottom on top, two new: it may be a survivor", page("a", "b", "c"), page("c", "n", "m"), false},
		{"two new, one re-announced from below the list: turned over", append(page("a", "b", "c"), "/d"), page("/d", "n", "m"), true},
		{"the top deleted, one new", page("a", "b", "c"), page("n", "b", "c"), false},
		{"a menu entry renamed", page("a", "b", "c"), []string{"/", "/s/", "/u/", "a", "b", "c", "/about"}, false},
		{"oldest first, scrolled by two", page("a", "b", "c", "d"), page("c", "d", "e", "f"), false},
		{"unreadable order", nil, page("a"), false},
		{"one bumped within the list", page("a", "b", "c"), page("c", "a", "b"), false},
		{"one deleted, none new", page("a", "b", "c"), page("a", "c"), false},
		{"new at the top and at the bottom", page("a", "b", "c"), append(page("n", "a", "b"), "/x"), false},
		{"all new, and new at the bottom", page("a", "b", "c"), append(page("n", "m", "k"), "/x"), true},
		{"a list alone, replaced", []string{"a", "b"}, []string{"c", "d"}, true},
		{"a list alone, grown", []string{"a", "b"}, []string{"c", "a", "b"}, false},
	}
	for _, tt := range tests {
		prev := ""
		if tt.before != nil {
			prev = Links(tt.before)
		}
		if got := TurnedOver(prev, tt.now); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestChurn(t *testing.T) {
	tests := []struct {
		name        string
		before, now []string
		want        float64
	}{
		{"first visit", nil, page("a", "b", "c"), 0},
		{"as before", page("a", "b", "c"), page("a", "b", "c"), 0},
		{"three new of five", page("a", "b", "c", "d", "e"), page("n", "m", "k", "a", "b"), 3.0 / 5},
		{"one new of five: no evidence", page("a", "b", "c", "d", "e"), page("n", "a", "b", "c", "d"), 0},
		{"oldest first, scrolled by two of four", page("a", "b", "c", "d"), page("c", "d", "e", "f"), 2.0 / 4},
		{"all new: turned over", page("a", "b", "c"), page("n", "m", "k"), 1},
		{"one bumped within the list", page("a", "b", "c"), page("c", "a", "b"), 0},
		{"a list that grows", []string{"a", "b"}, []string{"c", "a", "b"}, 0},
		{"the navigation alone changed", page("a", "b"), []string{"/", "/s/", "/u/", "a", "b", "/about"}, 0},
	}
	for _, tt := range tests {
		prev := ""
		if tt.before != nil {
			prev = Links(tt.before)
		}
		if got := Churn(prev, tt.now); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPollAfter(t *testing.T) {
	s := time.Second
	tests := []struct {
		name                   string
		churn                  float64
		since, shortest, floor time.Duration
		want                   time.Duration
		ok                     bool
	}{
		{"three of five gone in 7.5s: half the list in 6.25s", 0.6, 7500 * time.Millisecond, 7500 * time.Millisecond, s, 6250 * time.Millisecond, true},
		{"steady: half gone, the same again", 0.5, 5 * s, 10 * s, s, 5 * s, true},
		{"turned over: half as long", 1, 4 * s, 10 * s, s, 2 * s, true},
		{"slow list: the model decides", 0.1, 10 * s, 10 * s, s, 10 * s, false},
		{"quiet poll after a quick one: twice as late", 0, 2 * s, 10 * s, s, 4 * s, true},
		{"quiet poll at shortest: the model decides", 0, 10 * s, 10 * s, s, 10 * s, false},
		{"the floor holds", 1, 2 * s, 10 * s, 3 * s, 3 * s, true},
		{"a floor at shortest: the model decides", 1, 20 * s, 10 * s, 10 * s, 10 * s, false},
		{"after a pause, turned over: shortest", 1, time.Hour, 10 * s, s, 10 * s, false},
	}
	for _, tt := range tests {
		d, ok := PollAfter(tt.churn, tt.since, tt.shortest, tt.floor)
		if d != tt.want || ok != tt.ok {
			t.Errorf("%s: %v %v, want %v %v", tt.name, d, ok, tt.want, tt.ok)
		}
	}
}
