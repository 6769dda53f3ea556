// Package meta keeps, for each URL of a list, what its list line has no
// room for: the server's validators (ETag, Last-Modified), a checksum of
// the last body, the last HTTP status and error, attempt counts, when to
// try again, and where a redirect went. It is one bbolt file beside the
// list (LIST.meta), safe for any number of processes.
//
// A Store opens the file for one transaction at a time and closes it again:
// bbolt holds an exclusive flock while the file is open for writing, so
// spiders that share a list take turns, each for one batch read or write,
// never while fetching. A reader (spider show) takes a
// shared lock. bbolt commits are crash-safe (copy-on-write pages and a
// checksummed meta page), so a spider killed mid-write leaves the previous
// transaction intact.
//
// A record is stored as compact JSON under its URL (encoding.go: short
// keys, times in whole seconds, links held back as paths where they share
// the page's origin), and an index maps the first 16 bytes of
// each body's SHA-256 to the URLs that had it, for exact duplicates.
//
// internal/pglist keeps the same records, in the same encoding (Encode,
// Decode, SumKey), in PostgreSQL for spiders on several machines;
// internal/metatest is the suite both stores pass.
//
// What is stored is a cache of the fetch history, not the truth about the
// mirror: the list says which copy the mirror holds. Losing a record costs
// one unconditional GET, a restarted 404 count, or a forgotten retry time;
// it never loses a copy.
package meta

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Record is everything known about one URL beyond its list line.
type Record struct {
	URL          string    `json:"url"`
	ETag         string    `json:"etag,omitempty"`          // as served with the last 2xx
	LastModified string    `json:"last_modified,omitempty"` // as served with the last 2xx
	Checksum     string    `json:"sha256,omitempty"`        // hex SHA-256 of the last 2xx body, as served but for its links' cache busters and session ids (internal/crawl)
	MediaType    string    `json:"media_type,omitempty"`
	Size         int64     `json:"size,omitempty"`      // bytes of the last 2xx body
	Status       int       `json:"status,omitempty"`    // HTTP status of the last attempt; 0 = no answer
	Error        string    `json:"error,omitempty"`     // last attempt's error; "" after a success
	Reason       string    `json:"reason,omitempty"`    // why the line has its state, in words
	Attempts     int       `json:"attempts"`            // requests made for this URL, all outcomes
	Fails        int       `json:"fails,omitempty"`     // consecutive failed attempts
	NotFound     int       `json:"not_found,omitempty"` // 404 answers since the last success
	Unchanged    int       `json:"unchanged,omitempty"` // 304s or identical bodies since the last change
	LastAttempt  time.Time `json:"last_attempt,omitzero"`
	LastOK       time.Time `json:"last_ok,omitzero"`      // last 2xx or 304
	LastChanged  time.Time `json:"last_changed,omitzero"` // last 2xx whose body differed
	RetryAt      time.Time `json:"retry_at,omitzero"`     // no attempt before this time
	RedirectTo   string    `json:"redirect_to,omitempty"` // final URL of the last redirect chain
	// Forwards says the copy is a page that forwards to RedirectTo's copy
	// (a redirect to a page, which is a line of its own), not a copy of it.
	Forwards bool `json:"forwards,omitempty"`
	// The first of the NotFound 404 answers; zero when NotFound is 0.
	NotFoundSince time.Time `json:"not_found_since,omitzero"`
	// Held are links of the page that a budget held back (internal/crawl:
	// new links taken per host per pass), offered again at each visit of
	// the page until they are taken.
	Held []Link `json:"held,omitempty"`

	// The change model (internal/change). Visits are the last visits that
	// could tell whether the page changed since the one before (a 304, or
	// a 2xx whose body is compared with the last one), oldest first, at
	// most change.Keep of them; Checks and Changes count all of them.
	Visits  []Visit `json:"visits,omitempty"`
	Checks  int     `json:"checks,omitempty"`
	Changes int     `json:"changes,omitempty"`
	// Links is the order of the page's links to other pages at its last
	// visit (internal/change.Links), kept for pages a hub may be: the
	// next visit compares it to find the links a hub announces.
	Links string `json:"links,omitempty"`
	// Announced is when a hub or a sitemap last said the page changed,
	// zero again after the visit that follows; Lag is how long after the
	// announcement that visit came (the last one measured).
	Announced time.Time     `json:"announced,omitzero"`
	Lag       time.Duration `json:"lag,omitempty"`
	// Listing is how many more visits that find the page's links as
	// before leave it a listing, a page where the site's changes land: set
	// when its links changed at a visit, one less at each visit after
	// that found them unchanged (internal/crawl); 0 for a page that is
	// none. ListingLevel is the page's level at the visit that set it.
	Listing      int `json:"listing,omitempty"`
	ListingLevel int `json:"listing_level,omitempty"`
}

// Visit is one visit that could tell whether the page changed: seconds
// since the visit before, and whether it found a change.
type Visit struct {
	After   uint32 `json:"s"`
	Changed bool   `json:"c,omitempty"`
}

// Link is a link of a page as found there: its canonical URL, its kind
// (internal/extract's Kind: page, frame, requisite, style) and whether the
// page asked robots not to follow it.
type Link struct {
	URL      string `json:"url"`
	Kind     uint8  `json:"kind"`
	Nofollow bool   `json:"nofollow,omitempty"`
}

// Store is the metadata file of one list. The zero value is not usable;
// call Open. A Store is safe for concurrent use.
type Store struct {
	path    string
	timeout time.Duration
}

// Suffix is appended to the list's path to name its metadata file.
const Suffix = ".meta"

var (
	urls = []byte("url") // URL → Record (JSON)
	sums = []byte("sum") // checksum + " " + URL → nothing: exact duplicates
)

// Open returns the store at path. The file is created by the first write.
// timeout bounds each wait for another process's lock.
func Open(path string, timeout time.Duration) *Store {
	if timeout <= 0 {
		timeout = time.Minute
	}
	return &Store{path: path, timeout: timeout}
}

// Path is the file the store keeps its records in.
func (s *Store) Path() string { return s.path }

// ErrLocked says another process held the file longer than the timeout.
var ErrLocked = errors.New("meta: file locked by another process")

func (s *Store) open(readOnly bool) (*bolt.DB, error) {
	db, err := bolt.Open(s.path, 0o644, &bolt.Options{Timeout: s.timeout, ReadOnly: readOnly})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("%w: %s (waited %s)", ErrLocked, s.path, s.timeout)
		}
		return nil, fmt.Errorf("meta: open %s: %w", s.path, err)
	}
	return db, nil
}

// view runs fn in a read-only transaction; a store never written to has
// no file yet, and fn is then not called.
func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	db, err := s.open(true)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(fn)
}

// Get returns the records of the given URLs that exist.
func (s *Store) Get(keys []string) (map[string]Record, error) {
	out := make(map[string]Record, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(urls)
		if b == nil {
			return nil
		}
		for _, k := range keys {
			v := b.Get([]byte(k))
			if v == nil {
				continue
			}
			r, err := decode(k, v)
			if err != nil {
				return fmt.Errorf("meta: record of %s: %w", k, err)
			}
			out[k] = r
		}
		return nil
	})
	return out, err
}

// Put stores the records, each replacing the URL's previous one, in one
// durable transaction.
func (s *Store) Put(recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	return s.update(func(tx *bolt.Tx, b *bolt.Bucket) error {
		d, err := tx.CreateBucketIfNotExists(sums)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.URL == "" {
				return errors.New("meta: record without a URL")
			}
			if old := b.Get([]byte(r.URL)); old != nil {
				if o, err := decode(r.URL, old); err == nil && o.Checksum != "" && o.Checksum != r.Checksum {
					if err := d.Delete(sumKey(o.Checksum, r.URL)); err != nil {
						return err
					}
				}
			}
			v, err := encode(r)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(r.URL), v); err != nil {
				return fmt.Errorf("meta: put %s: %w", r.URL, err)
			}
			if r.Checksum != "" {
				if err := d.Put(sumKey(r.Checksum, r.URL), nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// update runs fn in one durable read-write transaction, with the bucket
// of the records.
func (s *Store) update(fn func(tx *bolt.Tx, b *bolt.Bucket) error) error {
	db, err := s.open(false)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(urls)
		if err != nil {
			return err
		}
		return fn(tx, b)
	})
}

func sumKey(sum, url string) []byte { return append(sumPrefix(sum), url...) }

// Same returns up to limit URLs other than url whose last body had the
// checksum sum: exact duplicates.
func (s *Store) Same(sum, url string, limit int) ([]string, error) {
	if sum == "" {
		return nil, nil
	}
	var out []string
	prefix := sumPrefix(sum)
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(sums)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && len(out) < limit && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			if u := string(k[len(prefix):]); u != url {
				out = append(out, u)
			}
		}
		return nil
	})
	return out, err
}

// Duplicates walks every group of two or more URLs whose last bodies were
// identical, calling fn with the checksum and the URLs; fn returning false
// stops the walk.
func (s *Store) Duplicates(fn func(sum string, urls []string) bool) error {
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(sums)
		if b == nil {
			return nil
		}
		urlsB := tx.Bucket(urls)
		var cur []byte
		var group []string
		flush := func() bool {
			if len(group) < 2 {
				return true
			}
			sum := hex.EncodeToString(cur)
			if v := urlsB.Get([]byte(group[0])); v != nil {
				if r, err := decode(group[0], v); err == nil {
					sum = r.Checksum
				}
			}
			return fn(sum, group)
		}
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) < sumLen {
				continue
			}
			if !bytes.Equal(k[:sumLen], cur) {
				if !flush() {
					return nil
				}
				cur, group = append([]byte(nil), k[:sumLen]...), nil
			}
			group = append(group, string(k[sumLen:]))
		}
		flush()
		return nil
	})
}
