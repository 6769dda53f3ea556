package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/hostgate"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/list"
)

// listRef names the list a command works on: a file, or a list in
// PostgreSQL (a DSN and a schema) with the local directory of the files a
// spider keeps beside it on this machine.
type listRef struct {
	path   string // the list file; "" for PostgreSQL
	dsn    string // libpq URL or keyword/value string; "" for a file
	schema string // PostgreSQL schema; pglist.DefaultSchema if empty
	state  string // local directory of a PostgreSQL list's side files
}

// isDSN reports whether a list setting names a PostgreSQL database rather
// than a file: a libpq URL (postgres://, postgresql://) or a keyword/value
// string whose first keyword is one of libpq's ("host=/run/postgresql
// dbname=mirror", "dbname=mirror", "service=spider").
func isDSN(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return true
	}
	key, _, ok := strings.Cut(s, "=")
	return ok && libpqKeywords[strings.TrimSpace(key)]
}

// libpqKeywords are the connection parameters of libpq's keyword/value
// strings (PostgreSQL's documentation, "Parameter Key Words") that a DSN
// may start with.
var libpqKeywords = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "service": true, "sslmode": true, "sslcert": true, "sslkey": true,
	"sslrootcert": true, "sslpassword": true, "connect_timeout": true, "application_name": true,
	"options": true, "target_session_attrs": true, "channel_binding": true, "client_encoding": true,
}

// newListRef returns the list that the settings list, schema and state
// name; state defaults to crawl.DefaultStateDir/<schema>.
func newListRef(spec, schema, state string) listRef {
	if !isDSN(spec) {
		return listRef{path: spec}
	}
	if schema == "" {
		schema = pglist.DefaultSchema
	}
	if state == "" {
		state = filepath.Join(crawl.DefaultStateDir, schema)
	}
	return listRef{dsn: strings.TrimSpace(spec), schema: schema, state: state}
}

// pg reports whether the list is in PostgreSQL.
func (r listRef) pg() bool { return r.dsn != "" }

// sidePath is the path the files kept beside the list are named from
// (LIST.mirror, LIST.meta, …): the file's own path, or "list" in the
// state directory for the files a list in PostgreSQL keeps per machine.
func (r listRef) sidePath() string {
	if r.pg() {
		return filepath.Join(r.state, "list")
	}
	return r.path
}

// String names the list in messages; a DSN may hold a password, so a
// PostgreSQL list is named by its schema.
func (r listRef) String() string {
	if r.pg() {
		return "PostgreSQL schema " + r.schema
	}
	if abs, err := filepath.Abs(r.path); err == nil {
		return abs
	}
	return r.path
}

// fileOnly fails for a PostgreSQL list: what a command does (compaction,
// repair) concerns the file's own format.
func (r listRef) fileOnly(what string) error {
	if r.pg() {
		return usageErr{fmt.Errorf("%s works on a list file only; %s keeps its lines in tables", what, r),
			"PostgreSQL keeps the table itself (autovacuum); spider list check verifies a list in it"}
	}
	return nil
}

// listStore is a list opened by a command: what the crawl needs of it
// (crawl.Store), appending URLs, and closing it.
type listStore interface {
	crawl.Store
	Add(ctx context.Context, adds []list.Add) (list.CycleStats, error)
	Close() error
}

// fileStore is a list file as a listStore.
type fileStore struct{ *list.List }

func (fileStore) Close() error { return nil }

// require fails with a hint unless the list file exists, before a
// command reads files beside it. A list in PostgreSQL is looked for when
// it is opened (openExisting).
func (r listRef) require() error {
	if r.pg() {
		return nil
	}
	return requireList(r.path)
}

// open opens the list to add to it: the file with o, or the database,
// creating or migrating the list's schema and the state directory.
func (r listRef) open(ctx context.Context, o list.Options) (listStore, error) {
	return r.openWith(ctx, o, false)
}

// openExisting opens a list that must exist, for the commands that read
// one: a file that does not exist, or a schema that holds no list, is a
// usage error (a mistyped --list or schema), not an empty list.
func (r listRef) openExisting(ctx context.Context, o list.Options) (listStore, error) {
	return r.openWith(ctx, o, true)
}

func (r listRef) openWith(ctx context.Context, o list.Options, existing bool) (listStore, error) {
	if !r.pg() {
		if existing {
			if err := requireList(r.path); err != nil {
				return nil, err
			}
		}
		l, err := list.Open(r.path, o)
		if err != nil {
			return nil, err
		}
		return fileStore{l}, nil
	}
	state, err := filepath.Abs(r.state)
	if err != nil {
		return nil, err
	}
	s, err := pglist.Open(ctx, r.dsn, pglist.Options{Schema: r.schema, State: filepath.Join(state, "list"), Existing: existing})
	switch {
	case errors.Is(err, pglist.ErrNoList):
		return nil, usageErr{fmt.Errorf("%s holds no list", r),
			"check schema in the config file (the one your spiders use); a spider's first run creates the list"}
	case errors.Is(err, pglist.ErrNewerSchema):
		return nil, hintErr{fmt.Errorf("%s: %w", r, err), "upgrade this spider to the version the other spiders run"}
	case err != nil:
		return nil, hintErr{fmt.Errorf("open %s: %w", r, err),
			"check the list's DSN; the database must accept the connection and let its user create the schema (or own it)"}
	}
	if existing {
		return s, nil // reading: the state directory is made by the spiders
	}
	if err := os.MkdirAll(state, 0o755); err != nil {
		s.Close()
		return nil, hintErr{fmt.Errorf("state directory of %s: %w", r, err), "set state in the config file to a writable local directory"}
	}
	return s, nil
}

// openToRun opens the list for spider id's run, a new one if its file
// does not exist (but not in a directory that does not: a mistyped path
// in a cron line would start a second, empty mirror), and takes the
// spider's lock for the life of the run: an error satisfying
// errors.Is(err, list.ErrRunning) if a spider with that id runs, on this
// host or (PostgreSQL) on any. done releases the lock, then the list.
func (r listRef) openToRun(ctx context.Context, id string, o list.Options) (l listStore, done func(), err error) {
	if !r.pg() {
		dir := filepath.Dir(r.path)
		switch fi, err := os.Stat(dir); {
		case errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir():
			return nil, nil, usageErr{fmt.Errorf("the directory of the list %s does not exist", r.path),
				fmt.Sprintf("check --list (list in the config); for a new list there, create the directory first: mkdir -p %s", dir)}
		case err != nil:
			return nil, nil, hintErr{fmt.Errorf("list directory: %w", err), "check --list (list in the config)"}
		}
	}
	if l, err = r.open(ctx, o); err != nil {
		return nil, nil, err
	}
	unlock, err := r.lockSpider(ctx, l, id)
	if err != nil {
		l.Close()
		if errors.Is(err, list.ErrRunning) {
			return nil, nil, err
		}
		return nil, nil, hintErr{fmt.Errorf("lock spider %s on %s: %w", id, r, err), "check that the list can be reached and written"}
	}
	return l, func() { unlock(); l.Close() }, nil
}

// lockSpider takes spider id's lock on the list st (opened from r) for the
// life of the run: list.ErrRunning if a spider with that id runs, on this
// host or (PostgreSQL) on any.
func (r listRef) lockSpider(ctx context.Context, st listStore, id string) (unlock func() error, err error) {
	if s, ok := st.(*pglist.Store); ok {
		l, err := s.LockSpider(ctx, id)
		if err != nil {
			return nil, err
		}
		return l.Unlock, nil
	}
	l, err := list.LockSpider(r.path, id)
	if err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

// historyReader is what commands read of a list's fetch history:
// LIST.meta (internal/meta) beside a file, the table history of a list in
// PostgreSQL.
type historyReader interface {
	Get(urls []string) (map[string]meta.Record, error)
	Same(sum, url string, limit int) ([]string, error)
	Duplicates(fn func(sum string, urls []string) bool) error
	Sample(every int, fn func(r *meta.Record) bool) error
}

// historyOf returns the fetch history of the open list l; timeout bounds
// the wait for LIST.meta's lock.
func historyOf(l crawl.Store, timeout time.Duration) historyReader {
	if s, ok := l.(*pglist.Store); ok {
		return s.History()
	}
	return meta.Open(l.StatePath()+meta.Suffix, timeout)
}

// crawlDelayOf returns the reader of the Crawl-delay the spiders of the
// open list l published for a host, valid at now (0 if none is):
// LIST.hosts.d beside a file, the table hosts in PostgreSQL.
func crawlDelayOf(ctx context.Context, l crawl.Store) func(host string, now time.Time) time.Duration {
	if s, ok := l.(*pglist.Store); ok {
		return func(host string, now time.Time) time.Duration { return s.CrawlDelay(ctx, host, now) }
	}
	dir := l.StatePath() + ".hosts.d"
	return func(host string, now time.Time) time.Duration { return hostgate.CrawlDelay(dir, host, now) }
}

// shareState sets in cfg the fetch history and host gate of a run on the
// list st: for a list in PostgreSQL its tables, shared by the spiders of
// every machine, and a gate with the limits o that closeGate closes after
// the run. For a file it leaves cfg as it is: the engine opens LIST.meta
// and LIST.hosts.d itself.
func shareState(ctx context.Context, st crawl.Store, cfg *crawl.Config, o hostgate.Options) (closeGate func(), err error) {
	s, ok := st.(*pglist.Store)
	if !ok {
		return func() {}, nil
	}
	g, err := s.OpenGate(ctx, o)
	if err != nil {
		return nil, hintErr{fmt.Errorf("open the hosts' pace of %s: %w", s.Schema(), err),
			"check the database: each spider holds a session of its own for the hosts' pace"}
	}
	cfg.History, cfg.Gate = s.History(), g
	return func() { g.Close() }, nil
}
