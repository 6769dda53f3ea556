package crawl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestUnwritable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.ENOSPC}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.EDQUOT}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "open", Path: "a", Err: syscall.EROFS}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.EFBIG}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "open", Path: "a", Err: syscall.EACCES}), true},
		{fmt.Errorf("mirror: write a: %w", &os.PathError{Op: "open", Path: "a", Err: syscall.ENOTDIR}), false},
		{fs.ErrNotExist, false},
		{errors.New("mirror: unsafe path"), false},
	} {
		if got := unwritable(tc.err); got != tc.want {
			t.Errorf("unwritable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// The back-off while the mirror cannot be written: doubling waits, a
// failure during a wait starts no new round, a whole write ends it, and
// the run gives up after the tries.
func TestStorageBackoff(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	full := errors.New("no space left on device")
	type step struct {
		at       time.Duration // since t0
		op       string        // "fail", "wrote", "check"
		wait     time.Duration // fail: the wait started
		paused   time.Duration // check: until (since t0); -1 = not paused
		gaveUp   bool          // check: verdict(false) != nil
		finalErr bool          // check: verdict(true) != nil
	}
	s := newStorage(time.Second, 3)
	for i, st := range []step{
		{at: 0, op: "check", paused: -1},
		{at: 0, op: "fail", wait: time.Second},
		{at: 500 * time.Millisecond, op: "fail", wait: 0}, // a write under way: same round
		{at: 500 * time.Millisecond, op: "check", paused: time.Second, finalErr: true},
		{at: time.Second, op: "check", paused: -1, finalErr: true},
		{at: time.Second, op: "fail", wait: 2 * time.Second},
		{at: 3 * time.Second, op: "wrote"},
		{at: 3 * time.Second, op: "check", paused: -1},
		{at: 3 * time.Second, op: "fail", wait: time.Second},
		{at: 4 * time.Second, op: "fail", wait: 2 * time.Second},
		{at: 6 * time.Second, op: "fail", wait: 4 * time.Second},
		{at: 6 * time.Second, op: "check", paused: 6*time.Second + time.Hour, gaveUp: true, finalErr: true},
		{at: 20 * time.Second, op: "check", paused: 20*time.Second + time.Hour, gaveUp: true, finalErr: true},
	} {
		now := t0.Add(st.at)
		switch st.op {
		case "fail":
			if w := s.failed(full, now); w != st.wait {
				t.Errorf("step %d: failed started a wait of %v, want %v", i, w, st.wait)
			}
		case "wrote":
			s.wrote()
		case "check":
			want := time.Time{}
			if st.paused >= 0 {
				want = t0.Add(st.paused)
			}
			if got := s.pausedUntil(now); !got.Equal(want) {
				t.Errorf("step %d: paused until %v, want %v", i, got, want)
			}
			if err := s.verdict(false); (err != nil) != st.gaveUp || err != nil && !errors.Is(err, ErrMirrorUnwritable) {
				t.Errorf("step %d: verdict %v, want given up %v", i, err, st.gaveUp)
			}
			if err := s.verdict(true); (err != nil) != st.finalErr {
				t.Errorf("step %d: final verdict %v, want %v", i, err, st.finalErr)
			}
		}
	}
}
