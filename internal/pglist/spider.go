package pglist

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// SpiderLock is a spider's hold on the list for its whole life: a session
// of its own that holds the spider's advisory lock. Other spiders read the
// lock in pg_locks to tell that the spider's claims are still being worked
// on; the server drops it when the session ends (the process died, its
// host vanished), and the spider's claims return to the pool at the next
// pass of any spider.
type SpiderLock struct {
	s   *Store
	id  string
	key int64 // advisory lock key: the schema's oid, then the spider's number

	mu    sync.Mutex
	conn  *pgx.Conn // nil once unlocked
	epoch int64     // the session's claim epoch; see the package doc
	proc  process   // the server process of the session
}

// sessionWait bounds what the spider's own session waits for whatever
// its context: the check that it is alive, its unlock, and the end of a
// lost session's server process (takeOver).
const sessionWait = 10 * time.Second

// process names a server process for as long as it lives: a process id
// is used again once its process is gone, its start time with it is not.
type process struct {
	pid     uint32
	started time.Time
}

// LockSpider takes the lock of spider id, opening the session that holds
// it. It returns list.ErrRunning at once if a live session holds it: in
// another process, on another host, or through this Store.
func (s *Store) LockSpider(ctx context.Context, id string) (*SpiderLock, error) {
	if err := validSpider(id); err != nil {
		return nil, err
	}
	l := &SpiderLock{s: s, id: id}
	l.mu.Lock()
	defer l.mu.Unlock()
	s.mu.Lock()
	if s.spiders[id] != nil {
		s.mu.Unlock()
		return nil, list.ErrRunning
	}
	s.spiders[id] = l // a pass meanwhile finds it without a session: ErrNotLocked
	s.mu.Unlock()
	if err := l.connect(ctx, process{}); err != nil {
		s.forget(l)
		return nil, err
	}
	return l, nil
}

// connect opens a session, takes the spider's advisory lock in it and
// starts a new epoch. lost is the server process of the spider's session
// before, if it lost that session; zero if none. The caller holds l.mu or
// owns l alone.
func (l *SpiderLock) connect(ctx context.Context, lost process) error {
	conn, err := pgx.ConnectConfig(ctx, l.s.lockCfg)
	if err != nil {
		return fmt.Errorf("pglist: connect: %w", err)
	}
	var num int64
	err = conn.QueryRow(ctx, `WITH ins AS (INSERT INTO spiders (spider) VALUES ($1) ON CONFLICT DO NOTHING RETURNING num)
		SELECT num FROM ins UNION ALL SELECT num FROM spiders WHERE spider = $1`, l.id).Scan(&num)
	var got bool
	if err == nil {
		l.key = l.s.ns<<32 | num
		err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&got)
	}
	if err == nil && !got && lost.pid != 0 {
		got, err = l.takeOver(ctx, conn, lost)
	}
	if err == nil && !got {
		err = list.ErrRunning
	}
	if err == nil {
		err = conn.QueryRow(ctx, `UPDATE spiders SET epoch = nextval('epochs'), pid = $2, host = $3
			WHERE spider = $1 RETURNING epoch, pg_backend_pid(),
				(SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())`,
			l.id, os.Getpid(), l.s.host).Scan(&l.epoch, &l.proc.pid, &l.proc.started)
	}
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		if err == list.ErrRunning {
			return err
		}
		return fmt.Errorf("pglist: lock spider %s: %w", l.id, err)
	}
	l.conn = conn
	return nil
}

// takeOver takes the spider's lock in conn from lost, the server process
// of the spider's session before, if that process still holds it: the
// server ends a session whose client hung up only once it notices (at
// once when idle, after its query when busy, after the TCP keepalive when
// the network failed), and until then the spider would be refused as
// running elsewhere. It ends that process, waiting up to sessionWait for
// it to be gone with its locks (PostgreSQL 14 or later), and tries the lock
// again. It reports false if another process holds the lock: that one is
// never ended.
func (l *SpiderLock) takeOver(ctx context.Context, conn *pgx.Conn, lost process) (bool, error) {
	var gone bool
	err := conn.QueryRow(ctx, `SELECT pg_terminate_backend(a.pid, $5)
		FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
		WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
			AND k.classid::bigint = $1 AND k.objid::bigint = $2
			AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND a.pid = $3 AND a.backend_start = $4`,
		l.s.ns, l.key&0xffffffff, int64(lost.pid), lost.started, sessionWait.Milliseconds()).Scan(&gone)
	switch {
	case errors.Is(err, pgx.ErrNoRows): // released, or held by another process
	case err != nil || !gone:
		return false, err
	}
	var got bool
	err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&got)
	return got, err
}

// session returns the epoch of the spider's live session. If the session
// was lost (the server restarted, the network failed), it opens a new one
// with a new epoch: claims of the old session are void (see the package
// doc); if another process took the spider's lock meanwhile it returns
// list.ErrRunning. The check is not cut short by ctx: a cancelled query
// closes its connection, and the session with it, so a spider told to
// stop during the check would lose its claims' results at its last pass.
func (l *SpiderLock) session(ctx context.Context) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return 0, ErrNotLocked
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionWait)
	err := l.conn.Ping(pctx)
	cancel()
	if err == nil {
		return l.epoch, nil
	} else if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	lost := l.proc
	l.conn.Close(context.WithoutCancel(ctx))
	l.conn = nil
	if err := l.connect(ctx, lost); err != nil {
		l.s.forget(l)
		return 0, fmt.Errorf("pglist: spider %s lost its session: %w", l.id, err)
	}
	return l.epoch, nil
}

// Unlock ends the spider's session: its remaining claims become
// reclaimable at once. The lock is released explicitly before the
// session is closed: the server ends a closed session, and drops its
// locks, only some time after the client hung up, and a spider of the
// same id started meanwhile would be refused as already running.
func (l *SpiderLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.s.forget(l)
	if l.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionWait)
	defer cancel()
	// A lost session has dropped the lock already: closing is all.
	_, _ = l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
	err := l.conn.Close(ctx)
	l.conn = nil
	return err
}

// forget drops l from the Store's spiders, if it is still there.
func (s *Store) forget(l *SpiderLock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spiders[l.id] == l {
		delete(s.spiders, l.id)
	}
}

// Beat refreshes the heartbeat of spider id, which this Store must hold
// the lock of, without a pass: a spider whose fetches are slow beats
// between passes so that it keeps its claims (see Cycle.Lease).
func (s *Store) Beat(ctx context.Context, id string, now time.Time) error {
	l := s.locked(id)
	if l == nil {
		return ErrNotLocked
	}
	if _, err := l.session(ctx); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `UPDATE spiders SET heartbeat = $2 WHERE spider = $1`, id, now.UTC())
	if err != nil {
		return fmt.Errorf("pglist: beat: %w", err)
	}
	return nil
}
