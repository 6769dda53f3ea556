package pglist

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spider-mirror/spider/internal/meta"
)

// History is the fetch history of the list's URLs in the list's schema
// (table history): internal/meta's store on PostgreSQL, with its
// semantics and its record encoding, shared by spiders on every host.
// It is safe for concurrent use.
type History struct {
	pool    *pgxpool.Pool
	timeout time.Duration
}

// History returns the list's fetch history, on the Store's connections.
func (s *Store) History() *History { return &History{pool: s.pool, timeout: time.Minute} }

// ctx bounds one call: the interface of a history store has no context
// (a file's lock wait is bounded the same way, meta.Open's timeout).
func (h *History) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), h.timeout)
}

// Get returns the records of the given URLs that exist.
func (h *History) Get(urls []string) (map[string]meta.Record, error) {
	out := make(map[string]meta.Record, len(urls))
	if len(urls) == 0 {
		return out, nil
	}
	ctx, cancel := h.ctx()
	defer cancel()
	rows, err := h.pool.Query(ctx, `SELECT url, rec FROM history WHERE url = ANY($1)`, urls)
	if err != nil {
		return nil, fmt.Errorf("pglist: history: %w", err)
	}
	var url string
	var rec []byte
	_, err = pgx.ForEachRow(rows, []any{&url, &rec}, func() error {
		r, err := meta.Decode(url, rec)
		if err != nil {
			return fmt.Errorf("record of %s: %w", url, err)
		}
		out[url] = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pglist: history: %w", err)
	}
	return out, nil
}

// Put stores the records, each replacing its URL's previous one (the last
// of a URL in recs wins), in one transaction. A row whose record and
// checksum are unchanged is not rewritten: no dead row for nothing.
func (h *History) Put(recs []meta.Record) error {
	if len(recs) == 0 {
		return nil
	}
	last := make(map[string]meta.Record, len(recs))
	for _, r := range recs {
		if r.URL == "" {
			return errors.New("pglist: history: record without a URL")
		}
		last[r.URL] = r
	}
	// In the URLs' order, as Announce locks them: two spiders' batches
	// over the same URLs never wait for each other in a cycle.
	urls := make([]string, 0, len(last))
	for u := range last {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	enc, sums := make([][]byte, len(urls)), make([][]byte, len(urls))
	for i, u := range urls {
		b, err := meta.Encode(last[u])
		if err != nil {
			return err
		}
		enc[i] = b
		if c := last[u].Checksum; c != "" {
			sums[i] = meta.SumKey(c)
		}
	}
	ctx, cancel := h.ctx()
	defer cancel()
	_, err := h.pool.Exec(ctx, `INSERT INTO history (url, rec, sum)
		SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[]) ORDER BY 1
		ON CONFLICT (url) DO UPDATE SET rec = excluded.rec, sum = excluded.sum
		WHERE (history.rec, history.sum) IS DISTINCT FROM (excluded.rec, excluded.sum)`, urls, enc, sums)
	if err != nil {
		return fmt.Errorf("pglist: history: put: %w", err)
	}
	return nil
}

// Announce records the news of each page as meta.Store.Announce does, in
// one transaction that locks the pages' rows.
func (h *History) Announce(news map[string]meta.News, window time.Duration) error {
	if len(news) == 0 {
		return nil
	}
	urls := make([]string, 0, len(news))
	for u := range news {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	ctx, cancel := h.ctx()
	defer cancel()
	err := pgx.BeginFunc(ctx, h.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT url, rec FROM history WHERE url = ANY($1) ORDER BY url FOR UPDATE`, urls)
		if err != nil {
			return err
		}
		old := map[string][]byte{}
		var url string
		var rec []byte
		if _, err := pgx.ForEachRow(rows, []any{&url, &rec}, func() error { old[url] = rec; return nil }); err != nil {
			return err
		}
		var upd, ins []string
		var updRec, insRec [][]byte
		for _, u := range urls {
			r := meta.Record{URL: u}
			if b, ok := old[u]; ok {
				if r, err = meta.Decode(u, b); err != nil {
					continue // a damaged record is the next visit's to replace
				}
			}
			if !r.Announce(news[u], window) {
				continue
			}
			b, err := meta.Encode(r)
			if err != nil {
				return err
			}
			if _, ok := old[u]; ok {
				upd, updRec = append(upd, u), append(updRec, b)
			} else {
				ins, insRec = append(ins, u), append(insRec, b)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE history SET rec = n.rec FROM unnest($1::text[], $2::bytea[]) AS n(url, rec)
			WHERE history.url = n.url`, upd, updRec); err != nil {
			return err
		}
		// A record a visit stored meanwhile is newer than news of its page.
		_, err = tx.Exec(ctx, `INSERT INTO history (url, rec) SELECT * FROM unnest($1::text[], $2::bytea[])
			ON CONFLICT (url) DO NOTHING`, ins, insRec)
		return err
	})
	if err != nil {
		return fmt.Errorf("pglist: history: announce: %w", err)
	}
	return nil
}

// Same returns up to limit URLs other than url whose last body had the
// checksum sum: exact duplicates.
func (h *History) Same(sum, url string, limit int) ([]string, error) {
	if sum == "" || limit <= 0 {
		return nil, nil
	}
	ctx, cancel := h.ctx()
	defer cancel()
	rows, err := h.pool.Query(ctx, `SELECT url FROM history WHERE sum = $1 AND url <> $2 ORDER BY url LIMIT $3`,
		meta.SumKey(sum), url, limit)
	if err != nil {
		return nil, fmt.Errorf("pglist: history: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pglist: history: %w", err)
	}
	return out, nil
}

// Duplicates walks every group of two or more URLs whose last bodies were
// identical, in the order of their checksums, calling fn with the
// checksum and the URLs (in order); fn returning false stops the walk.
func (h *History) Duplicates(fn func(sum string, urls []string) bool) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := h.pool.Query(ctx, `SELECT g.urls, h.rec FROM (
			SELECT sum, array_agg(url ORDER BY url) AS urls FROM history
			WHERE sum IS NOT NULL GROUP BY sum HAVING count(*) > 1) g
		JOIN history h ON h.url = g.urls[1] ORDER BY g.sum`)
	if err != nil {
		return fmt.Errorf("pglist: history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var urls []string
		var rec []byte
		if err := rows.Scan(&urls, &rec); err != nil {
			return fmt.Errorf("pglist: history: %w", err)
		}
		r, _ := meta.Decode(urls[0], rec)
		if !fn(r.Checksum, urls) {
			return nil
		}
	}
	return rows.Err()
}

// Sample calls fn with one record in every (every ≥ 1: all of them), in
// the order of their URLs' bytes; fn returning false stops. Records that
// do not decode are skipped. The rows stream: a sample of a large table
// holds one record at a time.
func (h *History) Sample(every int, fn func(r *meta.Record) bool) error {
	every = max(every, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := h.pool.Query(ctx, `SELECT url, rec FROM (
			SELECT url, rec, row_number() OVER (ORDER BY url) AS n FROM history) s
		WHERE (n - 1) % $1 = 0 ORDER BY url`, every)
	if err != nil {
		return fmt.Errorf("pglist: history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var url string
		var rec []byte
		if err := rows.Scan(&url, &rec); err != nil {
			return fmt.Errorf("pglist: history: %w", err)
		}
		r, err := meta.Decode(url, rec)
		if err != nil {
			continue
		}
		if !fn(&r) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pglist: history: %w", err)
	}
	return nil
}
