package pglist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spider-mirror/spider/internal/hostgate"
)

var _ hostgate.Pace = (*Gate)(nil)

// Gate is the hosts' shared pace (internal/hostgate's rules) in the list's
// schema (table hosts), so that spiders on every host share each host's
// delay, Crawl-delay, slow-down and connection cap. Each call is one
// short transaction that locks the host's row (SELECT … FOR UPDATE),
// never held while sleeping or fetching.
//
// Its leases are tied to a session of its own, which holds an advisory
// lock for the Gate's life, keyed like the spiders' (the schema's oid,
// then a number above 2^31 from the sequence gate_holders): a lease
// whose holder's lock is not in pg_locks is dropped by the next
// transaction on the host, so a killed process's requests stop counting
// as soon as the server sees its session end. A lease also expires after
// LeaseTTL, as in the files: a holder that is alive but stuck cannot
// block a host longer.
//
// Times are the database server's clock (Options.Now overrides it, for
// tests), so machines whose clocks disagree still space their requests
// by the delay.
type Gate struct {
	pool    *pgxpool.Pool
	rules   hostgate.Rules
	now     func() time.Time // nil: the server's clock
	holder  int64
	timeout time.Duration

	mu   sync.Mutex
	id   uint64
	hold *pgx.Conn // the session holding the holder's lock; nil once closed
}

// OpenGate opens the hosts' pace of the list with the limits o, and the
// session that holds its leases.
func (s *Store) OpenGate(ctx context.Context, o hostgate.Options) (*Gate, error) {
	g := &Gate{pool: s.pool, now: o.Now, timeout: time.Minute}
	g.rules = hostgate.NewRules(o)
	conn, err := pgx.ConnectConfig(ctx, s.lockCfg)
	if err != nil {
		return nil, fmt.Errorf("pglist: gate: connect: %w", err)
	}
	var n int64
	err = conn.QueryRow(ctx, `SELECT nextval('gate_holders')`).Scan(&n)
	if err == nil {
		g.holder = s.ns<<32 | (1<<31 + n%(1<<31))
		_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, g.holder)
	}
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("pglist: gate: %w", err)
	}
	g.hold = conn
	return g, nil
}

// Close ends the Gate's session: leases it still holds stop counting.
func (g *Gate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold == nil {
		return nil
	}
	err := g.hold.Close(context.Background())
	g.hold = nil
	return err
}

// TryAcquire makes one attempt to start a request to host, at least delay
// after the previous one. It returns a lease, or the time to wait before
// trying again.
func (g *Gate) TryAcquire(host string, delay time.Duration) (hostgate.Lease, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return g.tryAcquire(ctx, host, delay)
}

func (g *Gate) tryAcquire(ctx context.Context, host string, delay time.Duration) (l hostgate.Lease, wait time.Duration, err error) {
	err = g.update(ctx, host, func(r *hostgate.Record, now int64) bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		var ok bool
		if wait, ok = g.rules.Take(r, now, delay, g.holder, g.id+1); ok {
			g.id++
			l = hostgate.Lease{Host: host, ID: g.id}
		}
		return ok
	})
	return l, wait, err
}

// Acquire waits until a request to host may start (see TryAcquire), or ctx
// ends. A receive from wake (nil: none) cuts a wait short.
func (g *Gate) Acquire(ctx context.Context, host string, delay time.Duration, wake <-chan struct{}) (hostgate.Lease, error) {
	return hostgate.AcquireWith(ctx, wake, func() (hostgate.Lease, time.Duration, error) {
		return g.tryAcquire(ctx, host, delay)
	})
}

// Release ends the request of l and applies its outcome to the host.
func (g *Gate) Release(l hostgate.Lease, o hostgate.Outcome) error {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return g.update(ctx, l.Host, func(r *hostgate.Record, now int64) bool {
		g.rules.Release(r, now, g.holder, l.ID, o)
		return true
	})
}

// Report applies the outcome of a request to host made without a lease:
// its end time, and any slow-down, which binds every spider.
func (g *Gate) Report(host string, o hostgate.Outcome) error {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return g.update(ctx, host, func(r *hostgate.Record, now int64) bool {
		g.rules.Apply(r, now, o)
		return true
	})
}

// SetCrawlDelay publishes host's Crawl-delay for 24 hours, so every
// spider spaces its requests by at least d.
func (g *Gate) SetCrawlDelay(host string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return g.update(ctx, host, func(r *hostgate.Record, now int64) bool {
		return g.rules.SetCrawlDelay(r, now, d)
	})
}

// CrawlDelay returns the Crawl-delay published for host, valid at now; 0
// if none is or it cannot be read.
func (g *Gate) CrawlDelay(host string, now time.Time) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return crawlDelay(ctx, g.pool, host, now)
}

// CrawlDelay returns the Crawl-delay a spider published for host, valid
// at now; 0 if none is or it cannot be read. It is for a reader that
// paces nothing (spider status): it needs no Gate, and no session of its
// own.
func (s *Store) CrawlDelay(ctx context.Context, host string, now time.Time) time.Duration {
	return crawlDelay(ctx, s.pool, host, now)
}

func crawlDelay(ctx context.Context, pool *pgxpool.Pool, host string, now time.Time) time.Duration {
	var r hostgate.Record
	if pool.QueryRow(ctx, `SELECT rec FROM hosts WHERE host = $1`, host).Scan(&r) != nil {
		return 0
	}
	return r.CrawlDelayAt(now)
}

// update runs f on host's record in a transaction holding the row's lock;
// f reports whether to write the record back. Leases whose holder's
// session is gone, or that expired, are dropped first.
func (g *Gate) update(ctx context.Context, host string, f func(r *hostgate.Record, now int64) bool) error {
	err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
		r, live, now, err := g.lockRow(ctx, tx, host)
		if err != nil {
			return err
		}
		if g.now != nil {
			now = g.now().UnixNano()
		}
		dropped := g.rules.Prune(&r, now, func(h int64) bool { return h == g.holder || live[h] })
		if !f(&r, now) && !dropped {
			return nil
		}
		b, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE hosts SET rec = $2 WHERE host = $1`, host, b)
		return err
	})
	if err != nil {
		return fmt.Errorf("pglist: gate: %s: %w", host, err)
	}
	return nil
}

// rowQuery locks a host's row and reads its record, the holders of its
// leases whose sessions still hold their locks, and the server's clock.
const rowQuery = `SELECT rec,
	ARRAY(SELECT DISTINCT (l->>'pid')::bigint FROM jsonb_array_elements(coalesce(rec->'leases', '[]')) l
		WHERE EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
			AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND k.classid::bigint = (l->>'pid')::bigint >> 32
			AND k.objid::bigint = (l->>'pid')::bigint & 4294967295)),
	(extract(epoch FROM clock_timestamp()) * 1e9)::bigint
	FROM hosts WHERE host = $1 FOR UPDATE`

// lockRow returns host's record under its row lock, creating the row if
// the host has none, with the live holders among its leases' and the
// server's time in Unix nanoseconds.
func (g *Gate) lockRow(ctx context.Context, tx pgx.Tx, host string) (r hostgate.Record, live map[int64]bool, now int64, err error) {
	var holders []int64
	for range 2 {
		err = tx.QueryRow(ctx, rowQuery, host).Scan(&r, &holders, &now)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if _, err = tx.Exec(ctx, `INSERT INTO hosts (host, rec) VALUES ($1, '{"next":0}') ON CONFLICT DO NOTHING`, host); err != nil {
			return r, nil, 0, err
		}
		err = pgx.ErrNoRows
	}
	if err != nil {
		return r, nil, 0, err
	}
	live = make(map[int64]bool, len(holders))
	for _, h := range holders {
		live[h] = true
	}
	return r, live, now, nil
}
