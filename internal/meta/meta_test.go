package meta

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A writer holding the file makes others wait, and give up with ErrLocked
// after the timeout instead of hanging.
func TestLockedTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.meta")
	s := Open(path, 50*time.Millisecond)
	if err := s.Put([]Record{{URL: "http://a/"}}); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o644, nil) // another holder, by its own open file
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]Record{{URL: "http://b/"}}); !errors.Is(err, ErrLocked) {
		t.Errorf("Put while locked: %v, want ErrLocked", err)
	}
	if _, err := s.Get([]string{"http://a/"}); !errors.Is(err, ErrLocked) {
		t.Errorf("Get while locked: %v, want ErrLocked", err)
	}
	db.Close()
	if got, err := s.Get([]string{"http://a/"}); err != nil || len(got) != 1 {
		t.Errorf("Get after unlock: %v, %v", got, err)
	}
}

// A page reached before its news were stored gets that visit's lag,
// counted from the first news: later news do not shorten it, earlier
// ones lengthen it, stale news and pages not reached yet measure nothing.
func TestAnnounceReached(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	news := func(changed time.Duration) News {
		return News{Changed: t0.Add(changed), Heard: t0.Add(changed + time.Second)}
	}
	tests := []struct {
		name    string
		r       Record
		n       News
		stored  bool
		lag     time.Duration
		pending time.Time // Announced after
	}{
		{"reached a minute after", Record{LastOK: t0.Add(time.Minute)}, news(0), true, time.Minute, time.Time{}},
		{"reached in the same second", Record{LastOK: t0.Add(300 * time.Millisecond)}, news(500 * time.Millisecond), true, time.Second, time.Time{}},
		{"later news keep the lag", Record{LastOK: t0.Add(2 * time.Hour), Lag: 2 * time.Hour}, news(119 * time.Minute), false, 2 * time.Hour, time.Time{}},
		{"earlier news lengthen it", Record{LastOK: t0.Add(2 * time.Hour), Lag: time.Minute}, news(0), true, 2 * time.Hour, time.Time{}},
		{"stale news", Record{LastOK: t0.Add(2 * time.Hour)}, News{Changed: t0, Heard: t0.Add(3 * time.Hour)}, false, 0, time.Time{}},
		{"not reached yet", Record{LastOK: t0.Add(-time.Hour)}, news(0), true, 0, t0},
	}
	for _, tt := range tests {
		r := tt.r
		if got := r.Announce(tt.n, time.Hour); got != tt.stored || r.Lag != tt.lag || !r.Announced.Equal(tt.pending) {
			t.Errorf("%s: Announce = %v, lag %v, announced %v; want %v, %v, %v", tt.name, got, r.Lag, r.Announced, tt.stored, tt.lag, tt.pending)
		}
	}
}
