package pglist

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// Scan calls fn for every line of the list in the order the lines were
// appended, as one snapshot: the lines committed passes left when it
// started. It takes no lock and holds up no pass. The *Entry is valid only
// during the call.
func (s *Store) Scan(ctx context.Context, fn func(e *list.Entry) error) error {
	rows, err := s.pool.Query(ctx, `SELECT `+candCols+` FROM lines ORDER BY id`)
	if err != nil {
		return fmt.Errorf("pglist: scan: %w", err)
	}
	var r row
	_, err = pgx.ForEachRow(rows, r.dest(), func() error { return fn(r.entry()) })
	if err != nil {
		return fmt.Errorf("pglist: scan: %w", err)
	}
	return nil
}

// Line returns the line of url, and whether the list holds one, from the
// index of URLs: what Scan would find for it, without reading the list.
func (s *Store) Line(ctx context.Context, url string) (list.Entry, bool, error) {
	var r row
	err := s.pool.QueryRow(ctx, `SELECT `+candCols+` FROM lines WHERE url = $1`, url).Scan(r.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return list.Entry{}, false, nil
	}
	if err != nil {
		return list.Entry{}, false, fmt.Errorf("pglist: line: %w", err)
	}
	return *r.entry(), true, nil
}
