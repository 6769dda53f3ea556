package pglist

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// ErrNotEmpty reports an Import into a list that holds lines already: a
// whole list is moved into an empty one, never merged line by line.
var ErrNotEmpty = errors.New("pglist: the list holds lines already")

// Import loads the lines next yields (false when done), in order, into a
// list that holds none, as one transaction: all of them or none. A line's
// fields are kept as they are (level, state, file, times) but its claim,
// which belongs to a spider of the list it came from: it is dropped as a
// takeback drops it. A URL given twice fails the import. It returns the
// lines loaded, or ErrNotEmpty.
func (s *Store) Import(ctx context.Context, next func() (list.Entry, bool, error)) (int, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Passes that append wait until the import commits or fails, and see
	// whether the list was empty under the same lock.
	if _, err := tx.Exec(ctx, `LOCK TABLE lines IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	var held bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM lines)`).Scan(&held); err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	if held {
		return 0, ErrNotEmpty
	}
	levels := map[int]bool{}
	var srcErr error
	src := pgx.CopyFromFunc(func() ([]any, error) {
		e, ok, err := next()
		if err != nil || !ok {
			srcErr = err
			return nil, err
		}
		if e.State == list.Claimed {
			e.State = list.Found
		}
		levels[e.Level] = true
		return []any{e.URL, e.File, "", int64(0), e.Level, int16(e.State), nullTime(e.Modified), nullTime(e.Due)}, nil
	})
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"lines"}, []string{"url", "file", "spider", "epoch", "level", "state", "modified", "due"}, src)
	if srcErr != nil {
		return 0, srcErr
	}
	if err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	lv := make([]int, 0, len(levels))
	for l := range levels {
		lv = append(lv, l)
	}
	slices.Sort(lv)
	if _, err := tx.Exec(ctx, `INSERT INTO levels SELECT unnest($1::integer[]) ON CONFLICT DO NOTHING`, lv); err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE counts SET lines = $1`, n); err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	if _, err := tx.Exec(ctx, `ANALYZE lines`); err != nil {
		return 0, fmt.Errorf("pglist: import: %w", err)
	}
	return int(n), tx.Commit(ctx)
}
