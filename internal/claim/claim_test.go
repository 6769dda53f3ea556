package claim

import (
	"slices"
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
	}
	tests := []struct {
		p    Profile
		want []string
	}{
		// Lowest level first; within a level no copy counts as oldest.
		{fast, []string{"top-new", "top-older"}},
		// The slow profile takes stale lines first, regardless of level.
		{slow, []string{"ancient-deep", "top-new"}},
	}
	tests[1].p.Batch = 2
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
