package meta

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Announce records that a hub or a sitemap said each page changed at the
// time given (Record.Announced), in one durable transaction: the visit
// that follows measures the lag (Record.Lag). A record that already
// holds an announcement keeps it (the lag counts from the first news), and
// one whose page was reached (LastOK) at or after the announcement is
// left alone: that visit came after the news. A URL with no record gets
// one holding only the announcement, so a new page's first copy measures
// its lag too.
func (s *Store) Announce(at map[string]time.Time) error {
	if len(at) == 0 {
		return nil
	}
	return s.update(func(_ *bolt.Tx, b *bolt.Bucket) error {
		for url, t := range at {
			r := Record{URL: url}
			if old := b.Get([]byte(url)); old != nil {
				var err error
				if r, err = decode(url, old); err != nil {
					continue // a damaged record is the next visit's to replace
				}
			}
			if t.IsZero() || !r.Announced.IsZero() || !r.LastOK.IsZero() && !r.LastOK.Before(t.Truncate(time.Second)) {
				continue
			}
			r.Announced = t
			v, err := encode(r)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(url), v); err != nil {
				return fmt.Errorf("meta: announce %s: %w", url, err)
			}
		}
		return nil
	})
}

// Sample calls fn with one record in every (every ≥ 1: all of them), in
// the order of their URLs, in one read transaction; fn returning false
// stops. Records that do not decode are skipped. Skipping a record costs
// a step of the cursor, not its decoding, so a sample of a large store is
// much cheaper than reading it all.
func (s *Store) Sample(every int, fn func(r *Record) bool) error {
	every = max(every, 1)
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(urls)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		i := 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			i++
			if (i-1)%every != 0 {
				continue
			}
			r, err := decode(string(k), v)
			if err != nil {
				continue
			}
			if !fn(&r) {
				return nil
			}
		}
		return nil
	})
}
