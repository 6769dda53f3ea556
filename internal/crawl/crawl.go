// Package crawl runs one spider: it alternates short locked passes over the
// shared list (record results, append found links, claim a batch) with
// fetching the claimed pages, without the lock, into the mirror.
//
// It is the only package that knows list, claim, fetch, extract and mirror
// together. The profile (fast, slow, or any other) is data in Config; there
// is no branch on its name. The list is a Store (store.go): a file
// (package list) or a database (internal/pglist); the files the spider
// keeps beside it are named from its StatePath.
//
// # Who owns what
//
// One goroutine, the loop (loop.go), owns the run's state: the lines in
// flight, the results waiting for a pass, the totals. The lines to fetch
// and the state of fetching ahead (ahead.go) are in jobs (jobs.go), a type
// with one lock that the loop and the workers share. Everything else gets
// a piece of work from the loop and hands the answer back on a channel:
//
//   - fetch workers (worker.go), Config.Concurrency of them in an errgroup,
//     take their jobs from jobs, which the loop fills with each pass's
//     claims and closes when the run stops, and send each outcome back;
//   - a pass (pass.go) runs on a goroutine of its own, one at a time, with
//     a list.Cycle the loop built and does not touch until the pass answers;
//   - a group commit (commit.go) runs on a goroutine of its own, one at a
//     time, with the outcomes the loop handed it;
//   - a read of one host's sitemaps (sitemaps.go, sitemaploop.go) runs on
//     a goroutine of its own, one at a time, for a host the loop queued;
//     its URLs go to the next pass;
//   - a read of the list's visited lines for fetching ahead (known.go,
//     ahead_adapt.go) runs on a goroutine of its own, one at a time, and
//     sends them back;
//   - the account's samples (account.go) are written, each after the one
//     before, by a goroutine of their own that the loop hands them to and
//     does not wait for.
//
// The loop waits for every one of them before Run returns. Shared helpers
// with a lock of their own serve all of them: the hosts in scope (scope.go),
// politeness and the retry backoff (polite.go), the heartbeat (lease.go),
// the history store (history.go), the mirror's index (changes.go) and the
// status observations (stats.go).
//
// # Order of durability
//
// A worker keeps a fetched page's copy in memory; the group commit writes
// the copies finished since the last one (mirror.WriteAll: each file
// complete and durable under its name, or an error), and only then do
// their results go into a pass, so the list never points at a copy that is
// not on disk. A failed fetch never touches the copy: only a successful
// 2xx response replaces a file.
//
// Each URL's fetch history (internal/history decides, internal/meta stores
// it in LIST.meta) is read for the lines a pass claims and written, for the
// results, beside the pass that records them. It makes a refresh a
// conditional GET, confirms a 404 before archiving, and holds a failing
// URL back until its retry time for every spider.
//
// The run's account (account.go, internal/account) is tallied by a pass
// from the lines it reads, hourly (once per window if that is shorter): the loop logs a promise the host's
// budget cannot keep, and keeps the account over time beside the list.
package crawl

import (
	"log/slog"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/inlinks"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/internal/trap"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// Config is one spider's settings. Zero values take the defaults that
// defaults.go sets, all in one place.
type Config struct {
	Spider      string        // spider_id in the list
	Profile     claim.Profile // what and when to claim
	Starts      []string      // canonical start URLs, added at level 0
	Hosts       []string      // host[:port]s in scope; empty = the start URLs' hosts. The host of any level-0 line claimed later (spider seed) joins.
	Concurrency int           // fetches at once
	Delay       time.Duration // minimum time between two requests to one host
	Lease       time.Duration // claims of a spider silent this long are taken back
	Flush       time.Duration // record finished results at least this often
	MaxLinks    int           // links taken from one page
	Ahead       int           // jobs of lines fetched ahead of their claim waiting for a worker at most (ahead.go); <0 = none
	AheadBytes  int64         // bytes of copies fetched ahead held for a pass to claim, past which fetching ahead pauses
	UntilIdle   bool          // stop once nothing is due, nothing is in flight, and no other spider holds a line never visited
	MaxCycles   int           // stop after this many passes; 0 = no limit
	StopGrace   time.Duration // on stop, wait this long for fetches in flight
	// StorageBackoff is the first wait after the mirror could not be
	// written (storage.go); it doubles with each failed round.
	StorageBackoff time.Duration
	Logger         *slog.Logger // nil discards
	Now            func() time.Time

	// Mirror presentation (archive.go, page.go).
	RemoveArchived bool          // remove the copy of a page its site removed (404, 410) instead of keeping it with a banner
	Layout         mirror.Layout // the mirror's file naming: zero, or FoldCase for a case-insensitive file system

	// Fetch history (history.go).
	History      History       // nil = LIST.meta beside the list (internal/meta)
	ArchiveAfter int           // 404 answers, no success between, before a page is archived (410: at once)
	ArchiveSpan  time.Duration // how far apart the first and the last of them must be at least

	// Politeness and robots.txt (polite.go, robots.go).
	IgnoreRobots bool // fetch what robots.txt forbids (for one's own site)
	HostConns    int  // requests in flight to one host, all spiders of the list together
	// Gate holds the pace of each host that every spider of the list
	// shares; nil = files in LIST.hosts.d (internal/hostgate), opened
	// and closed by Run. A Gate given here is the caller's to close.
	Gate        Gate
	MaxSlowDown time.Duration // cap on how far a 429/503 pushes a host's next request
	// Sitemaps are read as hints (sitemaps.go): the URLs they list are
	// added at level 1, their lastmod marks copies older than it. This
	// spider reads a sitemap again once SitemapEvery has passed since
	// any spider of the list read it; 0 = the profile's window, 1 h to
	// 24 h.
	Sitemaps     bool
	SitemapEvery time.Duration
	// Which links are followed (scope.go): patterns, requisites, limits.
	// Scope.Hosts is ignored (Hosts above rules); a start URL on a private
	// or loopback address allows links to such addresses.
	Scope         scope.Config
	MaxNewPerHost int // distinct links taken per host per pass, but those taken in earlier passes; the rest wait for the page's next visit (held.go); -1 = no limit
	// Defences against site machinery and URL spaces without end
	// (traps.go, internal/trap); a zero budget takes its default, a
	// negative one is off.
	Traps trap.Config
	// HubLevel is the deepest level whose pages' links are compared
	// between visits to find what they announce (revisit.go); the fast
	// profile's depth limit; -1 = every level.
	HubLevel int
	// RequisiteEvery is how often a requisite with no history of its
	// own is presumed to change (revisit.go): cmd/spider gives the slow
	// profile's stale bound, at least its window. The claim policy
	// still refreshes it within each profile's longest interval; zero
	// means the profile's own window.
	RequisiteEvery time.Duration
}

// Summary is what a run did.
type Summary struct {
	Cycles    int
	Fetched   int // pages fetched with a 2xx answer and written
	Unchanged int // pages found unchanged (304, or the same body): copy kept, time advanced
	Archived  int // pages found gone (confirmed) and archived, not those found gone again
	Errors    int // failed fetches but 404 and 410 (refused, timed out, 5xx, …)
	Bytes     int64
	Added     int // lines appended to the list
	Dropped   int // results dropped: the claim had been taken back
	InFlight  int // claimed and not yet recorded (Progress only)
	Elapsed   time.Duration
	LastCycle list.CycleStats
	// robots.txt (robots.go).
	Disallowed int // lines robots.txt forbids, recorded without a request
	// Forwarded counts the lines whose redirect the spider does not
	// follow, their copy a page forwarding there online (forwardAway): no
	// page was fetched, so they count for no verdict of the run.
	Forwarded int
	// Failed counts the lines whose attempt failed (errors, 404s not yet
	// confirmed); FirstFailure is the first, as "URL: why" (failures.go).
	Failed       int
	FirstFailure string
}

// add adds the counts of an outcome taken (the fields a fetch counts).
func (s *Summary) add(d Summary) {
	s.Fetched += d.Fetched
	s.Unchanged += d.Unchanged
	s.Archived += d.Archived
	s.Errors += d.Errors
	s.Bytes += d.Bytes
	s.Disallowed += d.Disallowed
	s.Forwarded += d.Forwarded
}

// Engine is one running spider. Its fields are shared by the goroutines of
// a run and safe for concurrent use; the run's own state lives in the loop
// (loop.go).
type Engine struct {
	cfg       Config
	list      Store
	mirror    *mirror.Mirror
	fetch     *fetch.Client
	fetchMeta *fetch.Client // robots.txt and sitemaps: redirects within the scope's hosts
	log       *slog.Logger
	scope     *hostScope     // hosts whose links are followed (scope.go)
	follow    *follower      // which links are taken: scope, budget, held links, traps (scope.go)
	links     *linkFiles     // the files links lead to (links.go)
	polite    *politeness    // how the site is treated: pacing, robots.txt, back-off (polite.go)
	lease     *lease         // heartbeats and the epoch of claims (lease.go)
	obs       *observations  // what is reported: status, warnings, progress (stats.go)
	storage   *storage       // the back-off while the mirror cannot be written (storage.go)
	index     *changeLog     // news for the mirror's index (changes.go)
	navs      *navigation    // each host's navigation, for the prior of pages visited once (revisit.go)
	linkers   *inlinks.Index // which parsed pages link which, for deletions (revisit.go)
}

// New returns an engine. l, m and f are shared with nobody else in the
// process that could run passes for the same spider id. The files the
// spider keeps beside the list are named from l.StatePath().
func New(cfg Config, l Store, m *mirror.Mirror, f *fetch.Client) *Engine {
	cfg = withDefaults(cfg, l.StatePath())
	e := &Engine{
		cfg: cfg, list: l, mirror: m, log: cfg.Logger,
		scope:   newHostScope(cfg.Hosts, cfg.Starts),
		links:   &linkFiles{},
		polite:  newPoliteness(cfg, l.StatePath()),
		lease:   &lease{period: cfg.Lease},
		obs:     &observations{warns: &warnings{}, progress: &progress{}},
		storage: newStorage(cfg.StorageBackoff, defaultStorageTries),
		index:   &changeLog{},
		navs:    &navigation{},
		linkers: inlinks.New(),
	}
	e.follow = newFollower(cfg, e.scope, e.log)
	e.follow.held = &heldLinks{}
	e.follow.traps = newTraps(cfg.Traps, e.log)
	e.follow.traps.inherit(l)                  // traps capped by earlier runs stay capped
	e.fetch = f.WithFollowStop(e.redirectable) // redirects go only where links would
	e.fetchMeta = f.WithFollow(e.scope.has)
	return e
}

// progress holds a copy of the run's totals for Progress.
type progress struct {
	mu      sync.Mutex
	sum     Summary
	started time.Time
}

func (p *progress) set(s Summary) {
	p.mu.Lock()
	p.sum = s
	p.mu.Unlock()
}

// Progress returns what the run has done so far; safe to call while it
// runs (for a live progress line).
func (e *Engine) Progress() Summary {
	p := e.obs.progress
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sum
	s.Elapsed = e.cfg.Now().Sub(p.started)
	return s
}
