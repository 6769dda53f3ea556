package meta

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// News is what a hub or a sitemap said of a page: that it changed at
// Changed (a hub's visit, a sitemap's lastmod), which the crawl heard at
// Heard.
type News struct {
	Changed, Heard time.Time
}

// Announce records the news of each page (Record.Announced), in one
// durable transaction: the visit that follows measures the lag
// (Record.Lag). The lag counts from the change if the crawl heard of it
// within window, and from when it heard otherwise: a sitemap's lastmod of
// last year is no news the spiders could have acted on then. A record
// that already holds an announcement keeps it (the lag counts from the
// first news), and one whose page was reached (LastOK) at or after the
// change gets the lag of that visit instead, if the news are fresh (heard
// within window). A URL with no record gets one holding only the
// announcement, so a new page's first copy measures its lag too.
func (s *Store) Announce(news map[string]News, window time.Duration) error {
	if len(news) == 0 {
		return nil
	}
	return s.update(func(_ *bolt.Tx, b *bolt.Bucket) error {
		for url, n := range news {
			r := Record{URL: url}
			if old := b.Get([]byte(url)); old != nil {
				var err error
				if r, err = decode(url, old); err != nil {
					continue // a damaged record is the next visit's to replace
				}
			}
			if !r.Announce(n, window) {
				continue
			}
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

// Announce applies news of r's page to r as Store.Announce does, and
// reports whether r changed (and is to be stored).
func (r *Record) Announce(n News, window time.Duration) bool {
	if n.Changed.IsZero() || !r.Announced.IsZero() {
		return false
	}
	fresh := !n.Changed.Before(n.Heard.Add(-window))
	if !r.LastOK.IsZero() && !r.LastOK.Before(n.Changed.Truncate(time.Second)) {
		// Reached already: a new page fetched ahead, or a hinted one
		// claimed in the pass that heard the news, before the news were
		// stored. That visit's lag is the one to measure, at the list's
		// resolution of a second.
		// A lag measured already counts from the first news: keep it
		// unless these are older still.
		if !fresh || r.Lag > 0 && !r.LastOK.Add(-r.Lag).After(n.Changed) {
			return false
		}
		r.Lag = max(r.LastOK.Sub(n.Changed), time.Second)
		return true
	}
	r.Announced = n.Changed
	if !fresh {
		r.Announced = n.Heard
	}
	return true
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
