package list

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// ErrRunning reports that a spider with the same id already runs on the list.
var ErrRunning = errors.New("list: a spider with this id is already running")

// lockPoll is how often a waiting lock is retried. flock(2) has no
// cancellable blocking wait, so waits poll; the holder keeps it for one pass.
const lockPoll = 2 * time.Millisecond

// maxWaitReport caps the interval between two reports of one wait: the
// interval doubles from Options.WaitReport up to it.
const maxWaitReport = 5 * time.Minute

// locked is a List whose lock is held. What may be done only under the
// lock (reading for a pass, writing the list, replaying its journal) is a
// method of locked, and lockList is the only way to get one.
type locked struct{ *List }

// LockWait describes a wait for the list's lock that has lasted long, as
// reported to Options.OnWait.
type LockWait struct {
	Path   string        // the list
	Waited time.Duration // so far
	Holder Holder        // who holds the lock, as it wrote beside it; zero if it did not say
}

// LockWaitError is a wait for the list's lock that ended before the lock
// was taken: the caller's context ended (a deadline, a signal).
type LockWaitError struct {
	LockWait
	Err error // the context's error
}

func (e *LockWaitError) Error() string {
	s := fmt.Sprintf("list: gave up waiting for the lock of %s after %s", e.Path, e.Waited.Round(time.Millisecond))
	if e.Holder.PID != 0 {
		s += fmt.Sprintf(": %s", e.Holder)
	}
	return s + ": " + e.Err.Error()
}

func (e *LockWaitError) Unwrap() error { return e.Err }

// lockList takes the list's exclusive lock, waiting until ctx ends, and
// writes this process beside it (see lockrec.go). The lock is held until
// unlock is called. A long wait is reported to Options.OnWait, first
// after Options.WaitReport, then at doubling intervals.
func (l *List) lockList(ctx context.Context) (_ locked, unlock func(), err error) {
	start := time.Now()
	fail := func(err error) error {
		w := LockWait{Path: l.path, Waited: time.Since(start)}
		w.Holder, _ = l.readHolder()
		return &LockWaitError{LockWait: w, Err: err}
	}
	select {
	case l.sem <- struct{}{}: // the flock does not exclude goroutines of one process
	case <-ctx.Done():
		return locked{}, nil, fail(ctx.Err())
	}
	release := func() { <-l.sem }
	if err := l.waitFlock(ctx, start); err != nil {
		release()
		if ctx.Err() != nil {
			return locked{}, nil, fail(ctx.Err())
		}
		return locked{}, nil, fmt.Errorf("list: lock %s: %w", l.flock.Path(), err)
	}
	lk := locked{l}
	if err := lk.claimRecord(start); err != nil {
		l.flock.Unlock()
		release()
		return locked{}, nil, fmt.Errorf("list: lock %s: %w", l.flock.Path(), err)
	}
	return lk, func() {
		lk.releaseRecord()
		l.flock.Unlock()
		release()
	}, nil
}

// waitFlock takes the flock, reporting a long wait to l.onWait.
func (l *List) waitFlock(ctx context.Context, start time.Time) error {
	next := l.waitReport
	for {
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if l.onWait != nil && next > 0 {
			wctx, cancel = context.WithDeadline(ctx, start.Add(next))
		}
		ok, err := l.flock.TryLockContext(wctx, lockPoll)
		cancel()
		switch {
		case ok:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			return err
		}
		w := LockWait{Path: l.path, Waited: time.Since(start)}
		w.Holder, _ = l.readHolder()
		l.onWait(w)
		next = min(2*next, next+maxWaitReport)
	}
}

func spiderLockPath(list, id string) string   { return list + ".spider-" + id + ".lock" }
func spiderStatusPath(list, id string) string { return list + ".spider-" + id + ".json" }

// SpiderLock is held by a running spider for its whole life. Its flock is
// how other processes tell that the spider's claims are still being worked on.
type SpiderLock struct {
	fl *flock.Flock
}

// LockSpider takes the lock of spider id on the list at path. It returns
// ErrRunning at once if a live process holds it. A lock left by a dead
// process is free: the kernel drops flocks when their holder exits.
func LockSpider(path, id string) (*SpiderLock, error) {
	if !ValidSpiderID(id) {
		return nil, fmt.Errorf("list: invalid spider id %q", id)
	}
	fl := flock.New(spiderLockPath(path, id))
	// Another spider's liveness probe holds the lock for a few microseconds
	// (see alive); a few quick retries keep such a probe from turning a
	// restart into "already running".
	for try := 0; try < 20; try++ {
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("list: lock spider %s: %w", id, err)
		}
		if ok {
			return &SpiderLock{fl: fl}, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil, ErrRunning
}

// Unlock releases the lock; the spider's remaining claims become reclaimable.
func (s *SpiderLock) Unlock() error { return s.fl.Unlock() }

// alive reports whether spider id on the list at path has a live process:
// one holding its spider lock. The probe takes the lock if it is free and
// drops it at once.
func alive(path, id string) (bool, error) {
	return heldByOther(spiderLockPath(path, id))
}

// heldByOther reports whether the flock at path is held, by another
// process or another open file of this one. The probe takes the lock if
// it is free and drops it at once.
func heldByOther(path string) (bool, error) {
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	if ok {
		fl.Unlock()
		return false, nil
	}
	return true, nil
}
