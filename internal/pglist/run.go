package pglist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// ErrPicker reports a Cycle whose Picker the store cannot translate to
// SQL: it must be a claim.Picker, or offer the same policy as data
// (Profiled).
var ErrPicker = errors.New("pglist: the picker is not a claim profile (Profiled)")

// Profiled is a list.Picker whose policy is a claim profile, as
// *claim.Picker is. The store selects candidates with the profile in SQL,
// then asks the Picker's Due (with its vetoes) and Less of them.
type Profiled interface {
	list.Picker
	Profile() claim.Profile
	Backlogged() bool
	RefreshesEarly() bool
	RefreshesUnpaced() bool
}

// maxAttempts bounds the retries of a pass that the server aborted to
// break a deadlock or a serialization conflict with another pass.
const maxAttempts = 5

// Run performs the pass c in one transaction: append new links, record
// results, take back the claims of dead and stalled spiders, claim a
// batch, publish the spider's status. A pass that records, releases or
// claims needs the spider's lock (LockSpider); one that only appends does
// not.
func (s *Store) Run(ctx context.Context, c *list.Cycle) error {
	if err := validSpider(c.Spider); err != nil {
		return err
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	for _, a := range c.Add {
		if a.Level < 0 || a.Level > list.MaxLevel {
			return fmt.Errorf("pglist: level %d of %s is outside 0..%d", a.Level, a.URL, list.MaxLevel)
		}
	}
	var pick Profiled
	if c.Pick != nil {
		p, ok := c.Pick.(Profiled)
		if !ok {
			return fmt.Errorf("%w: %T", ErrPicker, c.Pick)
		}
		pick = p
	}
	var epoch int64
	l := s.locked(c.Spider)
	if l == nil && (len(c.Results) > 0 || c.ReleaseOwn || pick != nil) {
		return fmt.Errorf("%w: %s", ErrNotLocked, c.Spider)
	}
	if l != nil {
		e, err := l.session(ctx)
		if err != nil {
			return err
		}
		epoch = e
	}
	var err error
	for range maxAttempts {
		if err = s.attempt(ctx, c, pick, l, epoch); !retryable(err) {
			return err
		}
	}
	return fmt.Errorf("pglist: pass aborted %d times: %w", maxAttempts, err)
}

// retryable reports whether the server aborted a pass that may simply run
// again: a deadlock between passes that append or take back the same
// lines in different orders, or a serialization failure.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// attempt runs the pass once, in a transaction.
func (s *Store) attempt(ctx context.Context, c *list.Cycle, pick Profiled, l *SpiderLock, epoch int64) error {
	c.Claimed, c.HintedClaims, c.Stats = nil, nil, list.CycleStats{At: c.Now.UTC()}
	t0 := time.Now()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pglist: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	t1 := time.Now()
	p := &pass{tx: tx, c: c, pick: pick, epoch: epoch, ns: s.ns, now: c.Now.UTC().Truncate(time.Second)}
	if err := p.run(ctx); err != nil {
		return err
	}
	t2 := time.Now()
	c.Stats.WaitSec, c.Stats.ScanSec = t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds()
	if l != nil {
		c.Stats.HeldSec = t2.Sub(t1).Seconds()
		if err := s.publish(ctx, tx, c); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pglist: commit: %w", err)
	}
	c.Stats.WriteSec = time.Since(t2).Seconds()
	c.Stats.HeldSec = time.Since(t1).Seconds()
	return nil
}

// publish writes the spider's status (list.SpiderStatus) with the pass:
// its heartbeat is the pass's clock.
func (s *Store) publish(ctx context.Context, tx pgx.Tx, c *list.Cycle) error {
	stats, err := json.Marshal(c.Stats)
	if err != nil {
		return err
	}
	var extra []byte
	if len(c.Extra) > 0 {
		extra = c.Extra
	}
	_, err = tx.Exec(ctx, `UPDATE spiders SET heartbeat = $2, started = $3, lease_s = $4, last_cycle = $5, extra = $6, pid = $7
		WHERE spider = $1`, c.Spider, c.Now.UTC(), nullTime(c.Started), c.Lease.Seconds(), stats, extra, os.Getpid())
	if err != nil {
		return fmt.Errorf("pglist: publish status: %w", err)
	}
	return nil
}

// nullTime maps the zero time to SQL NULL, as the list maps it to "-".
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

// Add appends the URLs the list does not hold yet and lowers the level of
// those it holds deeper, in one pass of no spider, as list.List.Add does.
func (s *Store) Add(ctx context.Context, adds []list.Add) (list.CycleStats, error) {
	c := &list.Cycle{Spider: "import", Add: adds}
	err := s.Run(ctx, c)
	return c.Stats, err
}
