package pglist

import (
	"context"
	"fmt"
)

// Sizes are the bytes the list's tables take in the database, indexes and
// TOAST included (pg_total_relation_size): what a list file and its side
// files take on disk.
type Sizes struct {
	Lines   int64 // the lines and what counts them (tables lines, levels, counts)
	History int64 // each URL's fetch history (table history)
	Hosts   int64 // each host's pace (table hosts)
}

// Sizes returns the sizes of the list's tables.
func (s *Store) Sizes(ctx context.Context) (Sizes, error) {
	var z Sizes
	err := s.pool.QueryRow(ctx, `SELECT
			pg_total_relation_size('lines') + pg_total_relation_size('levels') + pg_total_relation_size('counts'),
			pg_total_relation_size('history'), pg_total_relation_size('hosts')`).Scan(&z.Lines, &z.History, &z.Hosts)
	if err != nil {
		return Sizes{}, fmt.Errorf("pglist: table sizes: %w", err)
	}
	return z, nil
}
