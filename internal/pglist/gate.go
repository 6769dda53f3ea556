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
// block a host longer. A Gate whose own session the server ended (a
// restart, a network failure) sees its key missing at its next call and
// takes a new session and key; its requests in flight at the loss
// stopped counting for the others when the lock went.
//
// Times are the database server's clock (Options.Now overrides it, for
// tests), so machines whose clocks disagree still space their requests
// by the delay.
type Gate struct {
	pool    *pgxpool.Pool
	lockCfg *pgx.ConnConfig // for the holder's sessions
	ns      int64           // the schema's oid: the high half of the holders' keys
	rules   hostgate.Rules
	now     func() time.Time // nil: the server's clock
	timeout time.Duration

	mu     sync.Mutex // guards all below
	id     uint64
	holder int64     // the key of the advisory lock hold holds
	hold   *pgx.Conn // the session holding it; nil once closed
}

// errGateClosed reports a call on a closed Gate.
var errGateClosed = errors.New("pglist: gate: closed")

// OpenGate opens the hosts' pace of the list with the limits o, and the
// session that holds its leases.
func (s *Store) OpenGate(ctx context.Context, o hostgate.Options) (*Gate, error) {
	g := &Gate{pool: s.pool, lockCfg: s.lockCfg, ns: s.ns, rules: hostgate.NewRules(o), now: o.Now, timeout: time.Minute}
	conn, holder, err := g.session(ctx)
	if err != nil {
		return nil, err
	}
	g.hold, g.holder = conn, holder
	return g, nil
}

// session opens a session of its own and takes in it the advisory lock
// of a new holder, whose key it returns.
func (g *Gate) session(ctx context.Context) (*pgx.Conn, int64, error) {
	conn, err := pgx.ConnectConfig(ctx, g.lockCfg)
	if err != nil {
		return nil, 0, fmt.Errorf("pglist: gate: connect: %w", err)
	}
	var n, holder int64
	err = conn.QueryRow(ctx, `SELECT nextval('gate_holders')`).Scan(&n)
	if err == nil {
		holder = g.ns<<32 | (1<<31 + n%(1<<31))
		_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, holder)
	}
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, 0, fmt.Errorf("pglist: gate: %w", err)
	}
	return conn, holder, nil
}

// self returns the key of the Gate's holder, errGateClosed once closed.
func (g *Gate) self() (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold == nil {
		return 0, errGateClosed
	}
	return g.holder, nil
}

// renew replaces a holder whose session the server lost (it restarted,
// the network failed, an administrator ended it) with a new one, unless
// another call did already, and returns the current holder. The leases
// of the lost holder stopped counting for every spider when its lock
// went; the new holder's count again.
func (g *Gate) renew(ctx context.Context, lost int64) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold == nil {
		return 0, errGateClosed
	}
	if g.holder != lost {
		return g.holder, nil
	}
	conn, holder, err := g.session(ctx)
	if err != nil {
		return 0, err
	}
	g.hold.Close(context.WithoutCancel(ctx))
	g.hold, g.holder = conn, holder
	return holder, nil
}

// Close ends the Gate's session: leases it still holds stop counting at
// once. (The server drops a closed session's locks only as its backend
// ends, a moment later; the holder's lock is released first so that a
// spider started right after sees its hosts free.)
func (g *Gate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A lost session has dropped the lock already: closing is all.
	_, _ = g.hold.Exec(ctx, `SELECT pg_advisory_unlock($1)`, g.holder)
	err := g.hold.Close(ctx)
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
	err = g.update(ctx, host, func(r *hostgate.Record, now, holder int64) bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		var ok bool
		if wait, ok = g.rules.Take(r, now, delay, holder, g.id+1); ok {
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
	return g.update(ctx, l.Host, func(r *hostgate.Record, now, holder int64) bool {
		g.rules.Release(r, now, holder, l.ID, o)
		return true
	})
}

// Report applies the outcome of a request to host made without a lease:
// its end time, and any slow-down, which binds every spider.
func (g *Gate) Report(host string, o hostgate.Outcome) error {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return g.update(ctx, host, func(r *hostgate.Record, now, _ int64) bool {
		g.rules.Apply(r, now, o)
		return true
	})
}

// SetCrawlDelay publishes host's Crawl-delay for 24 hours, so every
// spider spaces its requests by at least d.
func (g *Gate) SetCrawlDelay(host string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	return g.update(ctx, host, func(r *hostgate.Record, now, _ int64) bool {
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

// update runs f on host's record in a transaction holding the row's lock,
// with the clock and the Gate's holder; f reports whether to write the
// record back. Leases whose holder's session is gone, or that expired,
// are dropped first. A Gate whose own session was lost takes a new one
// first, so that the leases it takes count.
func (g *Gate) update(ctx context.Context, host string, f func(r *hostgate.Record, now, holder int64) bool) error {
	holder, err := g.self()
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
		row, err := g.lockRow(ctx, tx, host, holder)
		if err != nil {
			return err
		}
		if !row.self {
			if holder, err = g.renew(ctx, holder); err != nil {
				return err
			}
		}
		r, now := row.rec, row.now
		if g.now != nil {
			now = g.now().UnixNano()
		}
		dropped := g.rules.Prune(&r, now, func(h int64) bool { return h == holder || row.live[h] })
		if !f(&r, now, holder) && !dropped {
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

// rowQuery locks a host's row and reads its record, which holders of its
// leases still hold their locks, whether the caller's holder ($2) does,
// and the server's clock. Only the schema's keys ($3) are looked at.
const rowQuery = `WITH held AS (
		SELECT k.classid::bigint << 32 | k.objid::bigint AS key FROM pg_locks k
		WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1 AND k.classid::bigint = $3
			AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
	SELECT rec,
		ARRAY(SELECT DISTINCT (l->>'pid')::bigint FROM jsonb_array_elements(coalesce(rec->'leases', '[]')) l
			WHERE (l->>'pid')::bigint IN (SELECT key FROM held)),
		$2::bigint IN (SELECT key FROM held),
		(extract(epoch FROM clock_timestamp()) * 1e9)::bigint
	FROM hosts WHERE host = $1 FOR UPDATE`

// hostRow is a host's row as rowQuery reads it.
type hostRow struct {
	rec  hostgate.Record
	live map[int64]bool // the live holders among the leases'
	self bool           // the caller's holder is live
	now  int64          // the server's clock, Unix nanoseconds
}

// lockRow reads host's row under its lock, creating it if the host has
// none.
func (g *Gate) lockRow(ctx context.Context, tx pgx.Tx, host string, holder int64) (row hostRow, err error) {
	var holders []int64
	for range 2 {
		err = tx.QueryRow(ctx, rowQuery, host, holder, g.ns).Scan(&row.rec, &holders, &row.self, &row.now)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if _, err = tx.Exec(ctx, `INSERT INTO hosts (host, rec) VALUES ($1, '{"next":0}') ON CONFLICT DO NOTHING`, host); err != nil {
			return row, err
		}
		err = pgx.ErrNoRows
	}
	if err != nil {
		return row, err
	}
	row.live = make(map[int64]bool, len(holders))
	for _, h := range holders {
		row.live[h] = true
	}
	return row, nil
}
