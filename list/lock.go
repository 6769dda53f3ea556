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

// locked is a List whose lock is held. What may be done only under the
// lock (reading for a pass, writing the list, replaying its journal) is a
// method of locked, and lockList is the only way to get one.
type locked struct{ *List }

// lockList takes the list's exclusive lock, waiting until ctx ends. The
// lock is held until unlock is called.
func (l *List) lockList(ctx context.Context) (_ locked, unlock func(), err error) {
	l.mu.Lock()
	ok, err := l.flock.TryLockContext(ctx, lockPoll)
	if err != nil || !ok {
		l.mu.Unlock()
		if err == nil {
			err = ctx.Err()
		}
		return locked{}, nil, fmt.Errorf("list: lock %s: %w", l.flock.Path(), err)
	}
	return locked{l}, func() {
		l.flock.Unlock()
		l.mu.Unlock()
	}, nil
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
	fl := flock.New(spiderLockPath(path, id))
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
