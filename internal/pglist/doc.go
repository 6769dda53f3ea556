// Package pglist keeps the list of URLs that the spiders of a mirror share
// in PostgreSQL, with the file store's semantics (package list), so that
// spiders on several hosts can share one list; and beside it the URLs'
// fetch history and the hosts' pace, with internal/meta's and
// internal/hostgate's semantics.
//
// It is the file store's contract on a database: a pass (Store.Run with a
// list.Cycle) appends new links if absent, lowers levels, marks hinted
// lines, records results only on lines the recording spider still holds,
// takes back the claims of dead and stalled spiders, and claims a batch,
// in one short transaction, never held while fetching. The conformance
// suite (internal/listtest) runs against both stores.
//
// # Schema, version 1: the list
//
// The list lives in one schema (Options.Schema, "spider_list" by default);
// several lists share a database in schemas of their own. Open creates and
// migrates it: the migrations run in order, in one transaction, under an
// advisory lock on the schema's name, so that spiders starting at once
// migrate it once; schema_version holds the version. A list a newer spider
// migrated is refused (ErrNewerSchema).
//
//	lines     one row per URL, the list's lines:
//	  id        bigint identity: the order of insertion (Scan's order)
//	  url       text, UNIQUE: the canonical URL
//	  file      text, '' if no copy
//	  spider    text, '' if unclaimed
//	  epoch     bigint: the session epoch of the claim, 0 if unclaimed
//	  level     integer ≥ 0
//	  state     smallint: list.State (1 found … 6 disallowed)
//	  modified  timestamptz, NULL if none (list's last_modification)
//	  due       timestamptz, NULL if unknown (list's due)
//	levels    the levels lines have or had (a refresh is looked for per level)
//	counts    one row: the number of lines
//	spiders   one row per spider that ever ran: its number (the low half
//	          of its advisory lock key), its session's epoch, and its
//	          status: pid, host, started, heartbeat, lease_s, last_cycle
//	          (list.CycleStats as JSON), extra (Cycle.Extra)
//	epochs    a sequence: the session epochs
//
// The fields mean what they mean in the file (go doc list), times in UTC
// and whole seconds; a claimed line with no copy shows the state claimed,
// a claim restores the line when it returns, exactly as in the file.
// Partial indexes on the unclaimed lines serve the claim (below);
// lines_claimed indexes the claimed ones, for takebacks.
//
// # Liveness and fencing
//
//   - A spider holds its lock for its whole life (Store.LockSpider): a
//     session of its own, holding a session-level advisory lock keyed by
//     the schema's oid and the spider's number (Que's approach). A second
//     process with the same id, on any host, gets list.ErrRunning.
//   - A claim belongs to a live spider while its advisory lock is held (as
//     pg_locks shows) and its heartbeat (the clock of its last pass, or
//     Beat) is younger than its own published lease (or the passing
//     spider's, if it published none). Every pass takes back, with SKIP
//     LOCKED, the claims of spiders that are not live: a killed process
//     or a vanished host (its session ends: at once on a Unix socket, in
//     about a minute of TCP keepalives otherwise) or a stalled one.
//     Heartbeats and leases compare clocks of different hosts: keep them
//     in sync (NTP), as the claim policy needs anyway.
//   - Each session of a spider has an epoch, from a sequence; a claim
//     records the epoch of the session that made it. A result is recorded
//     only on a line the spider holds with the epoch of its current
//     session; otherwise it is dropped (CycleStats.Dropped). A spider
//     whose session was lost (the server restarted, the network failed)
//     opens a new one, with a new epoch, at its next pass: every claim of
//     the old session is void, even one no other spider took back yet, and
//     its own pass takes them back. If the server process of the old
//     session still holds the lock (it has not noticed its client is
//     gone), the spider ends that process first (SpiderLock.takeOver).
//     So a spider whose claims may have been taken back can never record
//     over a newer result. (Within one
//     session, the crawl's own lease check keeps results fetched before a
//     stall from being written: internal/crawl.)
//
// # Claiming in SQL
//
// The file store asks a list.Picker about every line; SQL cannot call Go.
// The store takes a Picker that offers its policy as data (Profiled:
// claim.Picker's Profile, Backlogged, RefreshesEarly and RefreshesUnpaced), translates it to queries for
// candidates (claimsql.go, a pure function), then asks the Picker's Due (its
// vetoes included) and Less of the candidates only:
//
//  1. waited: never visited, and found longer ago than the stale bound,
//     at any level, longest waiting first (lines_waiting);
//  2. new: never visited, or hinted, within the level limit, by level
//     then longest waiting (lines_new);
//  3. stale: a copy older than the stale bound, at any level, oldest
//     first (lines_since);
//  4. refresh, within the level limit (only the start pages while a first
//     mirror is under way): no model and a window old (lines_plain); a model whose
//     due time has passed and a copy at least shortest old
//     (lines_model_due); a copy at least longest old (lines_model_age).
//     A Picker that refreshes early (claim.Picker.Early, a spider with a
//     polite delay and no level limit) finds a refresh due from
//     claim.EarlyOdds of its interval on (a start page polled sooner
//     than shortest: as claim's earlyWait says): the same queries with the
//     bounds scaled, the model's point computed per row. One with no
//     delay (claim.Picker.Unpaced) finds every page due once it has
//     waited its claim.UnpacedWait (drawn between half of shortest and
//     shortest, computed per row from the MD5 of its URL and copy time):
//     the same indexes, the model's pages split on whether they are half
//     of shortest old, and its other copies (a file not ending in .html)
//     as with early refreshes. The refreshes of the start pages (the
//     HTML pages at level 0; startPage) are queried apart, in the tier of
//     class 2: claim ranks a start page due with the lines never visited,
//     and bounds its model's interval by longest only (no shortest: the
//     crawl may poll it sooner).
//     A stale copy that a query of class 2 finds (a hinted copy
//     within the level limit, a start page) is of class 2 in claim too.
//
// A Picker that names lines to offer first (Preferring: the lines a spider
// fetched ahead of their claim, whose outcome it holds) has them selected
// by URL, as a tier before the others; Due and Less decide as for any
// candidate.
//
// Each query selects exactly the lines claim.Due finds due (tested on
// random lists against claim itself). Classes 1 to 3 come in claim's own
// order, straight from their index. A refresh's urgency in claim is its
// odds, the copy's age over its interval, which depends on the profile and
// the clock and so cannot be indexed: its indexable stand-in is the time
// the line became due (the earliest first), per level, and the Picker's
// Less then orders the candidates by odds. Queries run tier by tier and
// stop at the tier that fills the batch. The chosen lines are locked FOR
// UPDATE SKIP LOCKED (a line another pass is changing is skipped, not
// waited for), checked with Due again, and claimed. If the Picker vetoes
// so many candidates that the batch is short, the claim asks for 8 times
// as many, at most twice more.
//
// # What differs from the file store
//
// CycleStats.Bytes is 0; Unvisited is counted up to 1000; Due counts the
// due lines the claim looked at, not all of them; WaitSec is the wait for a
// connection, HeldSec the transaction. A pass that records, releases or
// claims needs the spider's lock in this Store (ErrNotLocked); a pass that
// only appends (an import) does not.
//
// Passes wait for each other's row locks in one order, so they do not
// deadlock: new lines are inserted in the order of their URLs (their ids,
// the list's order, are drawn in the order of the Adds first), existing
// lines are locked in the order of their ids, takebacks and claims skip
// what is locked. A pass the server aborts anyway (a deadlock across its
// steps, a serialization failure) runs again, up to 5 times.
//
// # Figures
//
// BenchmarkClaim measures a pass recording the previous batch (returned
// unfetched) and claiming the next, on a list loaded with COPY in a
// steady state (1% never visited, 1% hinted, 8% without a model, levels
// falling off geometrically); SPIDER_BENCH_ROWS sets its size. Its
// current figures are in the README's Figures, with the command.
//
// # Schema, version 2: the fetch history and the hosts' pace
//
// Spiders on several machines share each URL's validators and each
// host's pace when the list is here (Store.History, Store.OpenGate, for
// internal/crawl's Config.History and Config.Gate):
//
//	history       one row per URL that has a fetch history:
//	  url           text COLLATE "C", PRIMARY KEY (byte order, as meta's)
//	  rec           bytea: meta.Record in meta's compact encoding (meta.Encode)
//	  sum           bytea: the checksum's 16-byte key (meta.SumKey), NULL
//	                if none; index history_sum, for duplicates
//	hosts         one row per host that was paced:
//	  host          text COLLATE "C", PRIMARY KEY (host:port)
//	  rec           jsonb: hostgate.Record, the host file's JSON (next, end,
//	                crawl_delay, crawl_delay_exp, strikes, leases)
//	gate_holders  a sequence: the numbers of the Gates' sessions
//
// History has meta.Store's semantics (internal/metatest runs against
// both): a batch's last record of a URL wins, an announcement never
// replaces a record a visit stored meanwhile. A Put and an Announce lock
// their rows in the URLs' order, so two spiders' batches do not deadlock;
// a record whose bytes did not change is not rewritten.
//
// Gate applies hostgate's rules (hostgate.Rules; internal/gatetest runs
// against both) in one short transaction per call that locks the host's
// row (SELECT … FOR UPDATE; a host's first call inserts it). A lease names
// its holder: the key of an advisory lock that the Gate's own session
// holds for its life (the schema's oid, then 2^31 + a number from
// gate_holders, so it never meets a spider's key). A lease whose holder is
// not in pg_locks is dropped by the next call on the host, so a killed
// process's requests stop counting as soon as its session ends (at once on
// a Unix socket, in about a minute of TCP keepalives otherwise); a lease
// also expires after hostgate.Options.LeaseTTL, so a stuck holder cannot
// block a host longer. A Gate that finds its own lock gone (the server
// restarted, the network failed) takes a new session at once; its
// requests in flight at the loss stopped counting for the others. Times are the server's clock (clock_timestamp), so
// machines whose clocks disagree still space their requests by the delay.
//
// Both tables are rewritten far more than inserted. fillfactor (history
// 80, hosts 90) leaves room on each page for a row's next version, so the
// updates are HOT: no index entry, and the old version is pruned from the
// page without a vacuum. No index covers a column a usual update changes
// (history_sum changes only with a page's body). history is vacuumed at
// 5% of its rows dead (plus 1000), not the default 20%, so a list of
// millions does not carry hundreds of thousands of dead rows between
// vacuums. BenchmarkStateBloat, 200,000 committed updates in about 3 s,
// schema as migrated against the same tables with their storage
// parameters reset (each loop is one CALL, whose statistics autovacuum
// sees only at its end: what is measured is what HOT pruning keeps in
// check, not what autovacuum would):
//
//	                          dead rows   size      HOT updates
//	history, 20,000 URLs      22,568      24.2 MB   90.0% (all without a new checksum)
//	  default parameters      64,216      61.7 MB   74.5%
//	hosts, 5,000 hosts           147       1.2 MB  100.0%
//	  default parameters         623       1.2 MB   99.75%
//
// Records of 200 to 1,500 bytes; with fillfactor 90 history stays at
// 60.8 MB (a page then has no room for a record's next version), with
// 70 it grows to 27.8 MB for the same 90% HOT. A host's record is small
// enough that its pages prune themselves at any fillfactor: the hosts'
// dead rows vary from run to run by more than the parameters change
// them (147 to 2,382 over runs), so hosts keeps only a fillfactor of 90.
//
// # Tests
//
// The tests need a server: SPIDER_TEST_PG_DSN (scripts/test starts a
// throwaway one). Without it they skip, except under CI=true, where they
// fail. Each test works in a schema of its own, dropped at its end.
//
// # Where things are
//
//	doc.go       this contract
//	store.go     Open, Options, Close
//	schema.go    the migrations
//	history.go   History: the fetch history (crawl.History)
//	gate.go      Gate: the hosts' pace (crawl.Gate)
//	spider.go    the spiders' sessions: LockSpider, SpiderLock, Beat
//	run.go       a pass: Run, its transaction, the status it publishes
//	pass.go      a pass's steps: append, record, take back, count
//	claim.go     the claim: candidates, Due and Less, locking
//	claimsql.go  the claim profile in SQL (pure)
//	scan.go      Scan
//	import.go    Import: a whole list into an empty one (spider list import --full)
package pglist
