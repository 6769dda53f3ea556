package crawl

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"syscall"
	"time"
)

// ErrMirrorUnwritable is wrapped by the error of a run that ended because
// the mirror could not take writes (disk full, quota, read-only, a file
// size limit), after backing off.
var ErrMirrorUnwritable = errors.New("the mirror cannot be written")

// unwritable reports whether a mirror write failed because of the file
// system rather than the page: no write will succeed until someone frees
// space or makes the mirror writable.
func unwritable(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EFBIG, fs.ErrPermission} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// storage decides what the spider does while the mirror cannot be written.
// A group commit that hits such a failure hands its lines back untouched
// (the list and the fetch history lose nothing, the copies on disk stay
// as they were) and starts a back-off: no claims and no fetches for base,
// then twice that, and so on. A group written whole ends it. After tries
// failed rounds in a row the run gives up with ErrMirrorUnwritable.
// Safe for concurrent use: the group commit reports, the workers and the
// loop ask.
type storage struct {
	base  time.Duration
	tries int

	mu    sync.Mutex
	fails int       // failed rounds in a row
	err   error     // the last failure
	until time.Time // no claims and no fetches before then
}

func newStorage(base time.Duration, tries int) *storage {
	return &storage{base: base, tries: tries}
}

// failed records a group commit that found the mirror unwritable at now.
// A failure during the back-off (a write already under way) does not
// start another round. It returns the wait it started, 0 if none.
func (s *storage) failed(err error, now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	if now.Before(s.until) {
		return 0
	}
	s.fails++
	wait := s.base << min(s.fails-1, 16)
	s.until = now.Add(wait)
	return wait
}

// wrote records a group commit whose every copy was written.
func (s *storage) wrote() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails, s.err, s.until = 0, nil, time.Time{}
}

// pausedUntil returns the end of the back-off under way at now, or zero.
// Once the run has given up, the back-off never ends.
func (s *storage) pausedUntil(now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.fails >= s.tries && s.err != nil:
		return now.Add(time.Hour)
	case now.Before(s.until):
		return s.until
	}
	return time.Time{}
}

// verdict returns the run's error: non-nil once the mirror failed tries
// rounds in a row, or (final) if it was still failing when the run ended
// for another reason.
func (s *storage) verdict(final bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil || s.fails < s.tries && !final {
		return nil
	}
	return fmt.Errorf("%w (%d attempts, backing off between them): %w", ErrMirrorUnwritable, s.fails, s.err)
}
