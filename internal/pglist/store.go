package pglist

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spider-mirror/spider/list"
)

// DefaultSchema is the schema a list lives in unless Options.Schema says
// otherwise.
const DefaultSchema = "spider_list"

// ErrNewerSchema reports a list whose schema a newer spider migrated: this
// one does not know its rules and refuses to touch it.
var ErrNewerSchema = errors.New("pglist: the list's schema is newer than this spider")

// ErrNoList is returned by Open with Options.Existing when the schema holds
// no list.
var ErrNoList = errors.New("pglist: no list in the schema")

// ErrNotLocked reports a pass that records, takes back or claims for a
// spider this Store does not hold the lock of (Store.LockSpider).
var ErrNotLocked = errors.New("pglist: the spider is not locked by this store")

// Options configure a Store.
type Options struct {
	// Schema is the PostgreSQL schema holding the list; DefaultSchema if
	// empty. Several lists can share a database, one schema each.
	Schema string
	// Host names this machine in the spiders' status; os.Hostname() if
	// empty.
	Host string
	// State is the local path that the files a spider keeps beside its
	// list on this machine are named from (StatePath), as a list file's
	// path is for a file.
	State string
	// Existing refuses a schema that holds no list (ErrNoList) instead of
	// creating it: for the commands that read a list, so that a mistyped
	// schema is an error, not an empty list.
	Existing bool
}

// Store is a list in PostgreSQL. It is safe for concurrent use; each pass
// is a transaction of its own on a connection of the pool.
type Store struct {
	pool    *pgxpool.Pool
	lockCfg *pgx.ConnConfig // for the spiders' own sessions
	schema  string
	ns      int64 // the schema's oid: the high half of its spiders' advisory lock keys
	host    string
	state   string

	mu      sync.Mutex
	spiders map[string]*SpiderLock
}

// Open connects to the database dsn names (a libpq URL or keyword/value
// string; host=/path/to/dir for a Unix socket) and creates or migrates the
// list's schema (unless Options.Existing).
func Open(ctx context.Context, dsn string, o Options) (*Store, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pglist: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{o.Schema}.Sanitize()
	cfg.ConnConfig.RuntimeParams["application_name"] = "spider"
	// A pass is a few small queries: compiling them (JIT) would cost more
	// than running them.
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	// The claim's queries add intervals to times (a copy's time plus a
	// share of its span); in a zone with daylight saving a day of an
	// interval is 23 or 25 hours across the change, where claim counts
	// 24 (the server's or the DSN's zone is no concern of the list).
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	lockCfg := cfg.ConnConfig.Copy()
	// A spider's session is its liveness: let the server notice a vanished
	// host in about a minute rather than the system's default two hours
	// (ignored on Unix sockets, where a dead peer is seen at once).
	lockCfg.RuntimeParams["tcp_keepalives_idle"] = "30"
	lockCfg.RuntimeParams["tcp_keepalives_interval"] = "10"
	lockCfg.RuntimeParams["tcp_keepalives_count"] = "3"
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("pglist: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := migrate(ctx, conn, o.Schema, !o.Existing); err != nil {
		if errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrNoList) {
			return nil, err
		}
		return nil, fmt.Errorf("pglist: migrate schema %s: %w", o.Schema, err)
	}
	s := &Store{lockCfg: lockCfg, schema: o.Schema, host: o.Host, state: o.State, spiders: map[string]*SpiderLock{}}
	if err := conn.QueryRow(ctx, `SELECT oid::bigint FROM pg_namespace WHERE nspname = $1`, o.Schema).Scan(&s.ns); err != nil {
		return nil, fmt.Errorf("pglist: schema %s: %w", o.Schema, err)
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("pglist: %w", err)
	}
	return s, nil
}

// Schema returns the schema holding the list.
func (s *Store) Schema() string { return s.schema }

// StatePath returns Options.State: the local path this machine's side
// files of the list are named from.
func (s *Store) StatePath() string { return s.state }

// Close releases the locks of the spiders this Store holds (their
// remaining claims become reclaimable) and closes its connections.
func (s *Store) Close() error {
	s.mu.Lock()
	locks := make([]*SpiderLock, 0, len(s.spiders))
	for _, l := range s.spiders {
		locks = append(locks, l)
	}
	s.mu.Unlock()
	var errs []error
	for _, l := range locks {
		errs = append(errs, l.Unlock())
	}
	s.pool.Close()
	return errors.Join(errs...)
}

// locked returns the lock this Store holds for spider id, nil if none.
func (s *Store) locked(id string) *SpiderLock {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spiders[id]
}

// validSpider checks a spider id as the file store does.
func validSpider(id string) error {
	if !list.ValidSpiderID(id) {
		return fmt.Errorf("pglist: invalid spider id %q", id)
	}
	return nil
}
