package crawl

import (
	"testing"
	"time"
)

// When the loop runs its next pass, and when it wakes to look again, as a
// table: every rule of passClock.due and passClock.wakeAt, from a clock
// that last passed at t0 with a spacing of 2s and a flush interval of 10s.
func TestPassClock(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	base := passClock{lastPass: t0, spacing: 2 * time.Second, flush: 10 * time.Second}
	busy := jobsState{queued: 3}               // workers have lines to fetch
	ahead := jobsState{queued: 3, ahead: true} // and fetch ahead
	tests := []struct {
		name string
		s    passClock
		at   time.Duration // now, after t0
		due  bool
		wake time.Duration // wakeAt after t0; -1: none
	}{
		{"the first pass", passClock{first: true, lastPass: t0}, 0, true, -1},
		{"idle, before its wait ends", with(base, func(s *passClock) { s.idleUntil = t0.Add(time.Minute) }), 30 * time.Second, false, time.Minute},
		{"idle, its wait over", with(base, func(s *passClock) { s.idleUntil = t0.Add(time.Minute) }), time.Minute, true, time.Minute},
		{"nothing left at all", base, 0, true, -1},
		{"claims in flight, nothing to record", with(base, func(s *passClock) { s.inflight, s.q = 3, busy }), 5 * time.Second, false, -1},
		{"results, claims still in flight", with(base, func(s *passClock) { s.results, s.pending, s.inflight, s.q = 2, 2, 3, busy }), 5 * time.Second, false, 10 * time.Second},
		{"results, the flush interval over", with(base, func(s *passClock) { s.results, s.pending, s.inflight, s.q = 2, 2, 3, busy }), 10 * time.Second, true, 10 * time.Second},
		{"every claim recorded", with(base, func(s *passClock) { s.results, s.pending, s.inflight = 3, 3, 3 }), time.Second, true, 10 * time.Second},
		{"news within the spacing", with(base, func(s *passClock) { s.news, s.inflight, s.q = true, 3, busy }), time.Second, false, 2 * time.Second},
		{"news, the spacing over", with(base, func(s *passClock) { s.news, s.inflight, s.q = true, 3, busy }), 2 * time.Second, true, -1},
		{"lines fetched ahead before it went off wait", with(base, func(s *passClock) { s.q = jobsState{open: 2, items: 2} }), 0, true, -1},
		{"ahead, within the spacing, workers busy", with(base, func(s *passClock) { s.results, s.pending, s.inflight, s.q = 1, 1, 3, ahead }), time.Second, false, 2 * time.Second},
		{"ahead, the spacing over, results wait", with(base, func(s *passClock) { s.results, s.pending, s.inflight, s.q = 1, 1, 3, ahead }), 2 * time.Second, true, 10 * time.Second},
		{"ahead, workers idle, lines wait for their claim", with(base, func(s *passClock) { s.inflight, s.q = 3, jobsState{open: 1, items: 1, ahead: true} }), time.Second, true, -1},
		{"ahead, the spacing over, nothing to record", with(base, func(s *passClock) { s.inflight, s.q = 3, ahead }), 2 * time.Second, false, -1},
	}
	for _, tt := range tests {
		now := t0.Add(tt.at)
		if got := tt.s.due(now); got != tt.due {
			t.Errorf("%s: due at +%v = %v, want %v", tt.name, tt.at, got, tt.due)
		}
		want := time.Time{}
		if tt.wake >= 0 {
			want = t0.Add(tt.wake)
		}
		if got := tt.s.wakeAt(now); !got.Equal(want) {
			t.Errorf("%s: wakeAt(+%v) = %v, want %v", tt.name, tt.at, got, want)
		}
	}
}

// with returns s changed by f.
func with(s passClock, f func(*passClock)) passClock {
	f(&s)
	return s
}
