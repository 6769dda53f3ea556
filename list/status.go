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
)

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
	_, unlock, err := l.lockList(ctx)
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
