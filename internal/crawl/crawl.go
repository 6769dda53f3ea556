// Package crawl runs one spider: it alternates short locked passes over the
// shared list (record results, append found links, claim a batch) with
// fetching the claimed pages, without the lock, into the mirror.
//
// It is the only package that knows list, claim, fetch, extract and mirror
// together. The profile (fast, slow, or any other) is data in Config; there
// is no branch on its name.
//
// Order of durability: a worker keeps a fetched page's copy in memory; a
// committer beside the loop writes what finished since its last group as
// one group (mirror.WriteAll: every temp file synced, renamed, every changed
// directory synced once), and only results whose copies are then durable go
// into a pass, so the list never points at a copy that is not on disk. A
// failed fetch never touches the copy: only a successful 2xx response
// replaces a file.
//
// Each URL's fetch history (internal/meta, LIST.meta) is read for the lines
// a pass claims and written, for the results, just before the pass that
// records them. It makes a refresh a conditional GET (a 304, or a 200 with
// the body's checksum unchanged, keeps the file and advances the copy's
// time), confirms a 404 on a second attempt before archiving (ArchiveAfter,
// ConfirmGone apart), and holds a failing URL back until its retry time
// for every spider, not only the one that failed (history.go).
//
// The engine is a pipeline, not a barrier: workers fetch claimed lines while
// the loop runs a pass whenever the batch is done, results have waited for
// the flush interval, or the spider is idle and lines may have become due.
// Each pass tops the in-flight set back up to the profile's batch size.
// While the links found are mostly new to the list (a first mirror), links
// are also fetched ahead of their claim and passes run as often as their
// own cost allows (see ahead.go), so the depth of a site does not multiply
// the time of a pass; meanwhile a graph of what was found keeps every
// line's level the shortest link distance, whatever order the pages came
// in (levels.go).
package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// Config is one spider's settings.
type Config struct {
	Spider      string        // spider_id in the list
	Profile     claim.Profile // what and when to claim
	Starts      []string      // canonical start URLs, added at level 0
	Hosts       []string      // host[:port]s in scope; empty = the start URLs' hosts. The host of any level-0 line claimed later (spider seed) joins.
	Concurrency int           // fetches at once
	Delay       time.Duration // minimum time between two requests to one host
	Lease       time.Duration // claims of a spider silent this long are taken back
	Flush       time.Duration // record finished results at least this often; 0 = derived from the window
	MaxLinks    int           // links taken from one page; 0 = 5000
	Ahead       int           // lines fetched ahead of their claim at most (ahead.go); 0 = 256×Concurrency if Delay is 0, else none; <0 = none
	AheadBytes  int64         // bytes of copies fetched ahead held in memory for a pass to claim, past which fetching ahead pauses; 0 = 32 MiB
	AheadLag    time.Duration // how much later than a page's last new link its other new links are fetched ahead (ahead.go); 0 = 1 ms; <0 = none
	UntilIdle   bool          // stop once nothing is due and nothing is in flight
	MaxCycles   int           // stop after this many passes; 0 = no limit
	StopGrace   time.Duration // on stop, wait this long for fetches in flight; 0 = 10s
	Logger      *slog.Logger  // nil discards
	Now         func() time.Time

	// Mirror presentation (archive.go, page.go).
	RemoveArchived bool          // remove the copy of a page its site removed (404, 410) instead of keeping it with a banner
	Layout         mirror.Layout // the mirror's file naming: zero, or FoldCase for a case-insensitive file system

	// Fetch history (history.go).
	Meta         *meta.Store   // nil = LIST.meta beside the list
	ArchiveAfter int           // 404 answers in a row before a page is archived (410: at once); 0 = 2
	ConfirmGone  time.Duration // wait between those attempts; 0 = a minute or a quarter window if shorter

	// Politeness and robots.txt (polite.go, robots.go).
	IgnoreRobots bool          // fetch what robots.txt forbids (for one's own site)
	HostConns    int           // requests in flight to one host, all spiders of the list together; 0 = 4
	MaxSlowDown  time.Duration // cap on how far a 429/503 pushes a host's next request; 0 = 1h
	// Which links are followed (scope.go): patterns, requisites, limits.
	// Scope.Hosts is ignored (Hosts above rules); a start URL on a private
	// or loopback address allows links to such addresses.
	Scope         scope.Config
	MaxNewPerHost int // distinct links taken per host per pass; 0 = DefaultMaxNewPerHost, -1 = no limit
}

// Summary is what a run did.
type Summary struct {
	Cycles    int
	Fetched   int // pages fetched with a 2xx answer and written
	Unchanged int // pages found unchanged (304, or the same body): copy kept, time advanced
	Archived  int
	Errors    int
	Bytes     int64
	Added     int // lines appended to the list
	Dropped   int // results dropped: the claim had been taken back
	InFlight  int // claimed and not yet recorded (Progress only)
	Elapsed   time.Duration
	LastCycle list.CycleStats
	// robots.txt (robots.go).
	Disallowed int // lines robots.txt forbids, recorded without a request
}

// Engine is one running spider.
type Engine struct {
	cfg      Config
	list     *list.List
	mirror   *mirror.Mirror
	fetch    *fetch.Client
	log      *slog.Logger
	obs      observations
	inFlight atomic.Int64 // for Progress
	cycles   atomic.Int64 // sum.Cycles, for budget without e.mu
	// queued counts the jobs handed to the workers (claimed lines and
	// fetches ahead) whose outcome finish has not taken yet: none means
	// the workers wait for the next pass (passDue).
	queued atomic.Int64
	// sent is how many claimed lines the last pass handed to the workers
	// (loop only): a pass after one that sent none, with none queued, is
	// the end of a crawl or a pause in it (historian.add).
	sent    int
	scopeMu sync.RWMutex
	scope   map[string]bool
	links   linkFiles // the files links lead to, while the scope stays (linkfiles.go)
	polite  *politeness
	retry   *backoff
	robots  robotsState
	follow  follower
	started time.Time
	changes changeLog // for the mirror's index: changes.go
	// lastBeat is when this spider last published its heartbeat (unix ns),
	// by a pass or by the heartbeat ticker; epoch counts the gaps between
	// two beats longer than half the lease: a spider that was stopped (or
	// starved) that long may have lost the claims it held then to another
	// spider, so a claim taken in an older epoch is void. See voided.
	lastBeat atomic.Int64
	epoch    atomic.Int64

	recent recentLinks // links the run's passes carried (adapt); owned by the Run loop
	known  knownLines  // the list's visited lines; written while fetching ahead is off, read while on

	mu        sync.Mutex    // guards the fields below
	results   []list.Result // committed, for the next pass
	ready     []*outcome    // finished fetches of claimed lines, for the next group commit
	adds      []list.Add
	ahead     map[string]*aheadItem // lines fetched ahead, until their outcome is handed on
	aheadq    chan struct{}         // a token for each job in stack
	aheadHeld int64                 // bytes of the copies in ahead waiting for a pass (ahead.go)
	stack     []job                 // fetches ahead waiting for a worker, the last found on top
	aheadOn   bool
	graph     *linkGraph // links found since fetching ahead was turned on (levels.go); nil while off
	stopping  bool
	sum       Summary
	history   []meta.Record // records to store before the next pass
	// pendingHistory is what the pass being built stores first; owned by
	// the Run loop.
	pendingHistory []meta.Record
	hist           historian     // stores history beside the loop (history.go)
	wake           chan struct{} // a fetch finished, or a group commit
	commits        chan struct{} // outcomes are ready for a group commit
}

// New returns an engine. l, m and f are shared with nobody else in the
// process that could run passes for the same spider id.
func New(cfg Config, l *list.List, m *mirror.Mirror, f *fetch.Client) *Engine {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.MaxLinks == 0 {
		cfg.MaxLinks = 5000
	}
	if cfg.ArchiveAfter <= 0 {
		cfg.ArchiveAfter = 2
	}
	if cfg.ConfirmGone <= 0 {
		cfg.ConfirmGone = min(time.Minute, max(cfg.Profile.Window/4, time.Millisecond))
	}
	if cfg.Meta == nil {
		cfg.Meta = meta.Open(l.Path()+meta.Suffix, time.Minute)
	}
	if cfg.Ahead == 0 && cfg.Delay == 0 {
		cfg.Ahead = 256 * cfg.Concurrency
	}
	if cfg.AheadBytes == 0 {
		cfg.AheadBytes = 32 << 20
	}
	if cfg.AheadLag == 0 {
		cfg.AheadLag = defaultAheadLag
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 10 * time.Second
	}
	if cfg.Flush == 0 {
		cfg.Flush = clamp(cfg.Profile.Window/4, 200*time.Millisecond, 10*time.Second)
	}
	scope := map[string]bool{}
	for _, h := range cfg.Hosts {
		scope[h] = true
	}
	if len(scope) == 0 {
		for _, s := range cfg.Starts {
			scope[hostOf(s)] = true
		}
	}
	e := &Engine{
		cfg: cfg, list: l, mirror: m, log: cfg.Logger, scope: scope,
		polite: newPoliteness(cfg, l.Path()), retry: newBackoff(),
		wake: make(chan struct{}, 1), commits: make(chan struct{}, 1),
		ahead: map[string]*aheadItem{}, aheadq: make(chan struct{}, max(cfg.Ahead, 0)),
	}
	e.fetch = f.WithFollow(e.inScope) // redirects never leave the scope
	return e
}

func clamp(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }

// Run runs passes and fetches until ctx ends, the spider is idle (with
// UntilIdle) or MaxCycles passes have run. On the way out it waits up to
// StopGrace for fetches in flight, records what finished and returns every
// other claim to the pool. A cancelled ctx is a normal stop, not an error.
func (e *Engine) Run(ctx context.Context) (Summary, error) {
	e.started = e.cfg.Now()
	defer e.polite.close()
	stopHistory := sync.OnceFunc(e.storeHistory()) // after the last pass: stores what is left
	defer stopHistory()
	// In flight: at most a batch of claims, plus the lines fetched ahead
	// that a pass claimed (those visited before go to the workers, the
	// others' outcomes are in hand), plus a batch of claims that replace
	// lines fetched ahead the pass could not claim.
	work := make(chan job, max(e.cfg.Profile.Batch, 1)*2+max(e.cfg.Ahead, 0))
	fetchCtx, cancelFetches := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelFetches()
	var wg sync.WaitGroup
	for range e.cfg.Concurrency {
		wg.Go(func() {
			for {
				select {
				case j, ok := <-work:
					if !ok {
						return
					}
					e.process(fetchCtx, ctx, j)
				case <-e.aheadq:
					e.process(fetchCtx, ctx, e.nextAhead())
				}
			}
		})
	}

	// Heartbeats go on through the stop grace and the last pass: the
	// spider still holds its claims until then.
	stopBeats := e.heartbeats(context.WithoutCancel(ctx))
	defer stopBeats()
	inflight := map[string]bool{}
	var runErr error
	first := true
	flush := time.NewTimer(e.cfg.Flush)
	defer flush.Stop()
	pace := time.NewTimer(0)
	defer pace.Stop()
	stopCommits := e.committer()
	stopPublisher := e.publisher()
	for {
		began := time.Now()
		c, carried := e.cycle(first, len(inflight))
		if err := e.runPass(ctx, c, nil); err != nil {
			if ctx.Err() == nil {
				runErr = err
			}
			e.requeue(c) // nothing was written: keep what the pass carried
			break
		}
		first = false
		// Passes driven by fetches ahead are spaced by their own cost, so
		// the loop holds the list at most a fifth of the time.
		spacing := max(4*time.Since(began), time.Millisecond)
		e.beat(c.Now)
		e.account(c)
		e.kickPublish()
		for _, r := range c.Results {
			delete(inflight, r.URL)
		}
		e.adapt(ctx, c) // before the claims go out: their links follow the new setting
		epoch := e.epoch.Load()
		mine := e.decide(carried, c.Claimed, epoch)
		recs := e.records(c.Claimed, mine)
		e.sent = 0
		for _, en := range c.Claimed {
			if en.Level == 0 {
				e.widenScope(en.URL) // a start URL seeded while running
			}
			inflight[en.URL] = true
			if !mine[en.URL] {
				e.claimedLine(en)
				e.queued.Add(1)
				e.sent++
				work <- job{en: en, epoch: epoch, rec: recs[en.URL]} // never blocks: in flight ≤ cap(work)
			}
		}
		e.inFlight.Store(int64(len(inflight)))
		e.log.Debug("pass", "spider", e.cfg.Spider, "lines", c.Stats.Lines, "added", c.Stats.Added,
			"recorded", c.Stats.Recorded, "claimed", c.Stats.Claimed, "due", c.Stats.Due, "lowered", c.Stats.Lowered,
			"taken_back", c.Stats.TakenBack, "held", c.Stats.HeldSec)
		if ctx.Err() != nil || e.cfg.MaxCycles > 0 && e.sum.Cycles >= e.cfg.MaxCycles {
			break
		}
		if len(inflight) == 0 && len(c.Claimed) == 0 && e.pending() == 0 && e.aheadAlive() == 0 {
			if e.cfg.UntilIdle {
				break
			}
			if !e.idle(ctx, c) {
				break
			}
			continue
		}
		// Wait for the batch to drain, or the flush interval with results
		// ready, or, when fetching ahead, the spacing with anything ready.
		flush.Reset(e.cfg.Flush)
		passed := time.Now()
		pace.Reset(spacing)
	wait:
		for {
			if e.passDue(len(inflight), time.Since(passed) >= spacing) {
				break
			}
			select {
			case <-ctx.Done():
				break wait
			case <-e.wake:
			case <-pace.C:
			case <-flush.C:
				if e.pending() > 0 {
					break wait
				}
				flush.Reset(e.cfg.Flush)
			}
		}
	}

	// Stop: no more claims; let fetches in flight finish within the grace.
	if ctx.Err() != nil && len(inflight) > 0 {
		e.log.Info("stopping: waiting for the fetches in flight", "in_flight", len(inflight), "at_most", e.cfg.StopGrace)
	}
	e.mu.Lock()
	e.stopping = true
	e.mu.Unlock()
	close(work)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(e.cfg.StopGrace):
		cancelFetches()
		<-done
	}
	stopCommits()
	stopPublisher()
	// The last pass records what finished and hands everything else back.
	// It must run even though ctx is cancelled, but not forever.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	e.commit()
	// Every copy is on disk and noted for the mirror's index: the index is
	// published beside the last pass and the history's last store, which
	// the end of a run would otherwise wait for one after the other.
	published := make(chan struct{})
	go func() {
		defer close(published)
		e.publish(true)
	}()
	c, _ := e.cycle(false, 0)
	c.ReleaseOwn = true
	c.Pick = nil
	if err := e.runPass(lctx, c, stopHistory); err != nil {
		if runErr == nil {
			runErr = fmt.Errorf("last pass: %w", err)
		} else {
			e.log.Warn("last pass failed too", "err", err)
		}
	} else {
		e.account(c)
	}
	<-published
	e.sum.Elapsed = e.cfg.Now().Sub(e.started)
	return e.sum, runErr
}

// job is a claimed line, the epoch of the pass that claimed it and its
// history, or a line fetched ahead of its claim.
type job struct {
	en    list.Entry
	epoch int64
	rec   meta.Record
	ahead bool
}

// beat records a heartbeat published at now. A gap of more than half the
// lease since the last one starts a new epoch: the spider was stopped or
// starved long enough that its older claims may have been taken back.
func (e *Engine) beat(now time.Time) {
	last := e.lastBeat.Load()
	if e.cfg.Lease > 0 && last != 0 && now.Sub(time.Unix(0, last)) > e.cfg.Lease/2 {
		e.epoch.Add(1)
		e.log.Warn("no heartbeat for more than half the lease (was this spider stopped?): results of older claims are dropped",
			"gap", now.Sub(time.Unix(0, last)).Round(time.Millisecond))
	}
	e.lastBeat.Store(now.UnixNano())
}

// voided reports whether a claim of the given epoch may have been taken
// back, so what was fetched for it must not be written: its epoch is over,
// or the spider has not published a heartbeat for half the lease (it may
// have just woken up and not noticed yet).
func (e *Engine) voided(epoch int64, now time.Time) bool {
	if e.cfg.Lease <= 0 {
		return false
	}
	return epoch != e.epoch.Load() || now.Sub(time.Unix(0, e.lastBeat.Load())) > e.cfg.Lease/2
}

// heartbeats publishes a heartbeat every quarter lease between passes, so a
// spider whose fetches are slow keeps its claims while it works on them.
func (e *Engine) heartbeats(ctx context.Context) (stop func()) {
	if e.cfg.Lease <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(e.cfg.Lease / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				now := e.cfg.Now()
				if err := e.list.Beat(ctx, e.cfg.Spider, now); err != nil {
					e.log.Debug("heartbeat not published", "err", err)
					continue
				}
				e.beat(now)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// cycle builds the next pass from what the workers produced. It returns
// the lines fetched ahead whose claim the pass decides.
func (e *Engine) cycle(first bool, inflight int) (*list.Cycle, map[string]bool) {
	now := e.cfg.Now()
	e.mu.Lock()
	c := &list.Cycle{
		Spider: e.cfg.Spider, Now: now, Started: e.started, Lease: e.cfg.Lease,
		Add: e.adds, Results: e.results, ReleaseOwn: first,
	}
	e.adds, e.results = nil, nil
	e.pendingHistory, e.history = e.history, nil
	carried := e.undecided()
	sum := e.sum
	e.mu.Unlock()
	if first {
		for _, s := range e.cfg.Starts {
			c.Add = append(c.Add, list.Add{URL: s, Level: 0})
		}
	}
	// The lines whose results this pass records are no longer in flight.
	want := e.cfg.Profile.Batch - (inflight - len(c.Results))
	switch {
	case len(carried) > 0:
		c.Pick = &aheadPicker{Picker: &claim.Picker{P: e.cfg.Profile, Now: now, Skip: e.retry.skip(now)},
			ahead: carried, want: max(want, 0)}
	case want > 0:
		c.Pick = &claim.Picker{P: e.cfg.Profile, Now: now, Want: want, Skip: e.retry.skip(now)}
	}
	p := e.cfg.Profile
	arch, slow, errs := e.obs.snapshot(now.Add(-24 * time.Hour))
	c.Extra, _ = json.Marshal(Status{Profile: p.Name, WindowSec: p.Window.Seconds(), MaxLevel: p.MaxLevel,
		StaleSec: p.Stale.Seconds(), Batch: p.Batch, Fetched: sum.Fetched, Unchanged: sum.Unchanged, Errors: sum.Errors, Archived: sum.Archived, InFlight: inflight,
		ArchivedLastDay: arch, SlowestHosts: slow, FrequentErrors: errs, Disallowed: sum.Disallowed})
	return c, carried
}

// Status is what a spider adds to the status it publishes after each pass
// (list.SpiderStatus.Extra): its profile, so that spider status can tell
// what is due for it, and its running totals.
type Status struct {
	Profile   string  `json:"profile"`
	WindowSec float64 `json:"window_s"`
	MaxLevel  int     `json:"max_level"`
	StaleSec  float64 `json:"stale_s"`
	Batch     int     `json:"batch"`
	Fetched   int     `json:"fetched"`
	Unchanged int     `json:"unchanged"`
	Errors    int     `json:"errors"`
	Archived  int     `json:"archived"`
	InFlight  int     `json:"in_flight"`
	// Lines robots.txt forbade, recorded disallowed without a request.
	Disallowed int `json:"disallowed"`
	// Since this spider started: pages it found gone in the last 24 hours,
	// its 5 slowest hosts, its 5 most frequent kinds of failure.
	ArchivedLastDay []Archival   `json:"archived_last_day"`
	SlowestHosts    []HostTime   `json:"slowest_hosts"`
	FrequentErrors  []ErrorCount `json:"frequent_errors"`
}

// ClaimProfile returns the profile the status was published with.
func (s *Status) ClaimProfile() claim.Profile {
	return claim.Profile{Name: s.Profile, Window: time.Duration(s.WindowSec * float64(time.Second)),
		MaxLevel: s.MaxLevel, Stale: time.Duration(s.StaleSec * float64(time.Second)), Batch: s.Batch}
}

// Progress returns what the run has done so far; safe to call while it
// runs (for a live progress line).
func (e *Engine) Progress() Summary {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.sum
	s.Elapsed = e.cfg.Now().Sub(e.started)
	s.InFlight = int(e.inFlight.Load())
	return s
}

// requeue puts a failed pass's inputs back for the next attempt.
func (e *Engine) requeue(c *list.Cycle) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.adds = append(c.Add, e.adds...)
	e.results = append(c.Results, e.results...)
	e.history = append(e.pendingHistory, e.history...)
	e.pendingHistory = nil
}

func (e *Engine) account(c *list.Cycle) {
	if c.Stats.TornBytes > 0 {
		e.log.Warn("dropped a torn last line of the list, left by a writer that died", "bytes", c.Stats.TornBytes)
	}
	if c.Stats.TakenBack > 0 {
		e.log.Info("claims returned to the pool (of dead or stalled spiders, or this spider's own on start and stop)", "lines", c.Stats.TakenBack)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sum.Cycles++
	e.cycles.Store(int64(e.sum.Cycles))
	e.sum.Added += c.Stats.Added
	e.sum.Dropped += c.Stats.Dropped
	e.sum.LastCycle = c.Stats
}

// pending returns how many claimed lines have finished since the last pass.
func (e *Engine) pending() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.ready) + len(e.results)
}

// passDue reports whether the loop should run a pass now: when fetching
// ahead, once spaced is true or no job is left for the workers, if
// committed results wait to be recorded or lines fetched ahead wait for
// their claim; otherwise once everything in flight has finished and been
// committed. Once nothing at all is left (the last of it may have gone
// without a result: a line fetched ahead that a pass could not claim, see
// queueAhead), only a pass can tell whether the crawl is over.
func (e *Engine) passDue(inflight int, spaced bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := len(e.results) // committed, to record
	if inflight == 0 && e.queued.Load() == 0 && len(e.ahead) == 0 && len(e.ready) == 0 {
		return true
	}
	if !e.aheadOn {
		return p > 0 && p >= inflight
	}
	// Spacing leaves the workers the machine while they fetch; once they
	// have nothing left to fetch, they wait for this pass.
	if !spaced && e.queued.Load() > 0 {
		return false
	}
	if p > 0 {
		return true
	}
	for _, it := range e.ahead {
		if it.state == undecided {
			return true
		}
	}
	return false
}

// idle waits until a line may have become due: the earliest time the
// picker saw, or a poll interval, since other spiders add lines too.
func (e *Engine) idle(ctx context.Context, c *list.Cycle) bool {
	d := clamp(e.cfg.Profile.Window/4, 100*time.Millisecond, 30*time.Second)
	k, ok := c.Pick.(*claim.Picker)
	if a, isAhead := c.Pick.(*aheadPicker); isAhead {
		k, ok = a.Picker, true
	}
	if ok && !k.Next().IsZero() {
		if until := k.Next().Sub(e.cfg.Now()); until < d {
			d = max(until, 10*time.Millisecond)
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
