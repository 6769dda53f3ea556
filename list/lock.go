package list

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// ErrRunning reports that a spider with the same id already runs on the list.
var ErrRunning = errors.New("list: a spider with this id is already running")

// lockPoll is how often a waiting lock is retried. flock(2) has no
// cancellable blocking wait, so waits poll; the holder keeps it for one pass.
const lockPoll = 2 * time.Millisecond

// lockList takes the list's exclusive lock, waiting until ctx ends.
func (l *List) lockList(ctx context.Context) (unlock func(), err error) {
	l.mu.Lock()
	ok, err := l.flock.TryLockContext(ctx, lockPoll)
	if err != nil || !ok {
		l.mu.Unlock()
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("list: lock %s: %w", l.flock.Path(), err)
	}
	return func() {
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

// SpiderStatus is what a spider publishes after each locked pass, in
// LIST.spider-ID.json. Heartbeat is the time of that pass: a live spider
// whose heartbeat is older than the lease has stopped making progress
// (paused, stuck) and loses its claims.
type SpiderStatus struct {
	Spider    string          `json:"spider"`
	PID       int             `json:"pid"`
	Started   time.Time       `json:"started"`
	Heartbeat time.Time       `json:"heartbeat"`
	LeaseSec  float64         `json:"lease_s"` // its claims are taken back once its heartbeat is this old
	Running   bool            `json:"running"` // set by ReadStatuses from the spider lock, not stored
	LastCycle CycleStats      `json:"last_cycle"`
	Extra     json.RawMessage `json:"extra,omitempty"` // the caller's own fields (profile, totals)
}

func writeStatus(path string, st *SpiderStatus) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	name := spiderStatusPath(path, st.Spider)
	tmp, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	// Not fsynced: the status is advisory. A torn or empty status after a
	// power cut reads as "no heartbeat", and liveness falls back to the flock.
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func readStatus(path, id string) (*SpiderStatus, error) {
	b, err := os.ReadFile(spiderStatusPath(path, id))
	if err != nil {
		return nil, err
	}
	var st SpiderStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("list: status of spider %s: %w", id, err)
	}
	return &st, nil
}

// Beat refreshes the heartbeat of spider id without a pass: under the
// list's lock, it rewrites only the spider's status with Heartbeat = now.
// A spider whose fetches are slow beats between passes so that it keeps
// its claims for as long as it works on them.
func (l *List) Beat(ctx context.Context, id string, now time.Time) error {
	unlock, err := l.lockList(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readStatus(l.path, id)
	if err != nil {
		return fmt.Errorf("list: beat: %w", err)
	}
	st.PID, st.Heartbeat = os.Getpid(), now.UTC()
	return writeStatus(l.path, st)
}

// ReadStatuses returns the published status of every spider that ever ran
// on the list at path, with Running set from its spider lock.
func ReadStatuses(path string) ([]SpiderStatus, error) {
	matches, err := filepath.Glob(path + ".spider-*.json")
	if err != nil {
		return nil, err
	}
	var out []SpiderStatus
	for _, m := range matches {
		id := strings.TrimSuffix(strings.TrimPrefix(m, path+".spider-"), ".json")
		if !ValidSpiderID(id) {
			continue
		}
		st, err := readStatus(path, id)
		if err != nil {
			st = &SpiderStatus{Spider: id}
		}
		if st.Running, err = alive(path, id); err != nil {
			return nil, err
		}
		out = append(out, *st)
	}
	return out, nil
}
