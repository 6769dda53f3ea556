package pglist

import (
	"context"
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
