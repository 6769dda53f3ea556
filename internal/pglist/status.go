package pglist

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// liveLocks selects the numbers of the spiders whose session holds their
// lock now, given the schema's oid as $1.
const liveLocks = `SELECT k.objid::bigint FROM pg_locks k
	WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1 AND k.classid::bigint = $1
		AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())`

// Statuses returns the status every spider that ever ran on the list
// published with its last pass, in order of id, with Running set from its
// session's lock: what list.ReadStatuses returns for a file.
func (s *Store) Statuses(ctx context.Context) ([]list.SpiderStatus, error) {
	rows, err := s.pool.Query(ctx, `SELECT spider, pid, started, heartbeat, lease_s, last_cycle, extra,
			num IN (`+liveLocks+`)
		FROM spiders ORDER BY spider`, s.ns)
	if err != nil {
		return nil, fmt.Errorf("pglist: statuses: %w", err)
	}
	var out []list.SpiderStatus
	var st list.SpiderStatus
	var started, beat *time.Time
	var last, extra []byte
	_, err = pgx.ForEachRow(rows, []any{&st.Spider, &st.PID, &started, &beat, &st.LeaseSec, &last, &extra, &st.Running}, func() error {
		st.Started, st.Heartbeat, st.LastCycle, st.Extra = timeOf(started), timeOf(beat), list.CycleStats{}, nil
		if len(last) > 0 {
			if err := json.Unmarshal(last, &st.LastCycle); err != nil {
				return fmt.Errorf("spider %s: %w", st.Spider, err)
			}
		}
		if len(extra) > 0 {
			st.Extra = append(json.RawMessage(nil), extra...)
		}
		out = append(out, st)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pglist: statuses: %w", err)
	}
	return out, nil
}
