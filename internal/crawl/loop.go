package crawl

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// run is the state of one Run. The loop goroutine owns it alone: passes
// and group commits get their share of it on a channel and hand the answer
// back on another; workers take their jobs from jobs and hand back each
// outcome (see the package doc).
type run struct {
	e    *Engine
	ctx  context.Context // the run's: done means stop claiming
	hist *historian
	// hints are the announcements sent lately, sent again (hints.go).
	hints keptHints
	acct  accountant // the account of counting passes (account.go)
	// samples writes the account's samples on a goroutine of its own.
	samples *sampleKeeper
	// starts are the never mirrored start lines claimed (failures.go).
	starts startWatch

	inflight map[string]claimedLine // claimed lines not yet recorded
	jobs     *jobs                  // lines for the workers, and fetching ahead (shared with the workers)
	ready    []*outcome             // taken outcomes waiting for a group commit
	inCommit int                    // outcomes the group commit under way holds
	results  []list.Result          // committed, for the next pass
	history  []meta.Record          // records for the historian, handed over at the next pass
	sum      Summary
	sent     int // claimed lines the last pass handed out
	// announced is how many of the Adds of the pass under way went to the
	// history as announcements (cycle): the rest are hints that are no
	// news.
	announced int

	first      bool // the next pass is the run's first
	filling    bool // the list's visited lines are being read (adapt)
	fillWanted bool // and fetching ahead is to go on once they are
	// claimedMeanwhile are the lines claimed the usual way while they are
	// read, for the graph that fetching ahead starts with.
	claimedMeanwhile []list.Entry
	passing          bool          // a pass is under way
	committing       bool          // a group commit is under way
	lastPass         time.Time     // when the last pass ended
	spacing          time.Duration // passes while fetching ahead are this far apart
	idleUntil        time.Time     // nothing to do: the next pass waits until then
	elsewhere        [2]int        // at the last idle pass: lines never visited that other spiders hold, and the list's lines
	backlog          bool          // pages never visited wait, or this spider fetches some: claim.Picker.Backlog
	news             bool          // a first visit's links or copy, a hint or a guess, or pages never visited wait for the next pass: see passDue
	stopping         bool          // no more claims
	over             bool          // the loop ends once no pass is under way
	err              error

	maps       sitemapQueue     // sitemaps to read, and the read under way (sitemaploop.go)
	mapDone    chan sitemapRead // from the goroutine reading a host's sitemaps
	outcomes   chan *outcome    // from the workers
	knownDone  chan knownFill   // from the goroutine reading the list's visited lines (adapt)
	passDone   chan passResult
	commitDone chan committed
}

// claimedLine is what the loop keeps of a line it claimed until a pass
// records its result.
type claimedLine struct {
	ahead bool // claimed as fetched ahead
	first bool // never visited: its links may lead to pages never visited
}

// committed is a group commit's answer: its outcomes, and the correction
// to the totals.
type committed struct {
	outs []*outcome
	fix  Summary
}

// Run runs passes and fetches until ctx ends, the spider is idle (with
// UntilIdle) or MaxCycles passes have run. On the way out it waits up to
// StopGrace for fetches in flight, records what finished and returns every
// other claim to the pool. A cancelled ctx is a normal stop, not an error.
func (e *Engine) Run(ctx context.Context) (Summary, error) {
	started := e.cfg.Now()
	e.obs.progress.mu.Lock()
	e.obs.progress.started = started
	e.obs.progress.mu.Unlock()
	defer e.polite.close()
	r := newRun(e, ctx)
	stopHistory := r.hist.start()
	defer stopHistory()
	// Fetches in flight outlive ctx by the stop grace (drain).
	fetchCtx, cancelFetches := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelFetches()
	// The fetch workers: each ends once drain has closed the jobs and the
	// loop has received its last outcome; Run waits for them.
	var workers errgroup.Group
	for range e.cfg.Concurrency {
		workers.Go(func() error {
			for {
				j, ok := r.jobs.take()
				if !ok {
					return nil
				}
				o := e.process(fetchCtx, ctx, j)
				j.turn.came() // if the job ended before its turn
				o.take = r.jobs.found(o, e.cfg.Profile.MaxLevel, e.lease.current())
				r.outcomes <- o
			}
		})
	}
	// Heartbeats go on through the stop grace and the last pass: the
	// spider still holds its claims until then.
	stopBeats := heartbeats(context.WithoutCancel(ctx), e.list, e.cfg.Spider, e.cfg.Lease, e.cfg.Now, e.beat, e.log)
	defer stopBeats()
	stopPublisher := e.publisher()
	stopSamples := r.samples.start()
	r.loop()
	r.drain(cancelFetches)
	workers.Wait()
	stopPublisher()
	r.last(stopHistory)
	stopSamples()
	e.obs.warns.flush(e.log)
	if err := e.storage.verdict(true); err != nil && r.err == nil {
		r.err = err // stopped while the mirror still could not be written
	}
	r.sum.Elapsed = e.cfg.Now().Sub(started)
	return r.sum, r.err
}

func newRun(e *Engine, ctx context.Context) *run {
	q := newJobs(newAhead(e.cfg.Ahead, e.cfg.AheadBytes))
	q.paced = e.polite.paced
	return &run{
		e: e, ctx: ctx, hist: newHistorian(e.cfg.History, e.log, e.cfg.Profile.Window), hints: keptHints{keep: hintKeep(e.cfg.Profile)},
		inflight: map[string]claimedLine{}, jobs: q, first: true, samples: &sampleKeeper{e: e},
		outcomes: make(chan *outcome, e.cfg.Concurrency), knownDone: make(chan knownFill, 1),
		passDone: make(chan passResult, 1), commitDone: make(chan committed, 1), mapDone: make(chan sitemapRead, 1),
	}
}

// loop runs until the run is over: it starts passes and group commits when
// they are due and takes every answer.
func (r *run) loop() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	done := r.ctx.Done()
	for !r.over || r.passing {
		now := time.Now()
		if !r.passing && !r.stopping && r.passDue(now) {
			r.startPass()
		}
		if !r.committing && len(r.ready) > 0 {
			r.startCommit()
		}
		r.startSitemaps()
		var wake <-chan time.Time
		if !r.passing {
			if at := r.wakeAt(now); !at.IsZero() {
				timer.Reset(max(at.Sub(now), 0))
				wake = timer.C
			}
		}
		select {
		case o := <-r.outcomes:
			r.received(o)
			r.receiveWaiting()
		case p := <-r.passDone:
			r.passing = false
			r.afterPass(p)
			r.e.obs.warns.flush(r.e.log)
		case c := <-r.commitDone:
			r.committed(c)
		case k := <-r.knownDone:
			r.filled(k)
		case rd := <-r.mapDone:
			r.sitemapsRead(rd)
		case <-wake:
		case <-done:
			done = nil
			r.stopping, r.over = true, true
		}
		r.publishProgress()
	}
}

// received takes a worker's outcome (whose links the worker queued in
// jobs): its result goes to the group commit; the outcome of a line
// fetched ahead whose claim is not decided yet waits in jobs for the pass
// that decides it.
func (r *run) received(o *outcome) {
	r.jobs.received()
	if o.take {
		r.take(o)
	}
	r.checkStarts()
}

// checkStarts stops the run if its start URLs failed and it fetched
// nothing (startWatch.verdict). It runs after each outcome received or
// taken: any may be the last that a failed start waited for.
func (r *run) checkStarts() {
	if err := r.starts.verdict(r.sum, r.jobs.state().queued > 0); err != nil && r.err == nil && !r.stopping {
		r.err, r.stopping, r.over = err, true, true // every start URL failed
	}
}

// receiveWaiting takes the outcomes already waiting, so that a burst of
// them costs one turn of the loop.
func (r *run) receiveWaiting() {
	for {
		select {
		case o := <-r.outcomes:
			r.received(o)
		default:
			return
		}
	}
}

// take counts an outcome whose result this spider records, and queues it
// for the group commit. A page found gone is news only now: a line
// fetched ahead may turn out to be another spider's, or visited, and then
// fetched again.
func (r *run) take(o *outcome) {
	if o.res.State != list.Downloaded {
		o.copy = nil // only a stored page has a copy
	}
	r.sum.add(o.count)
	tally(&r.sum, o)
	r.starts.answered(o, r.e.cfg.Now())
	if o.gone {
		r.e.obs.archived(o.res.URL, o.res.Modified)
		r.e.log.Info("gone", "url", o.res.URL)
	}
	r.ready = append(r.ready, o)
}

// startCommit hands the ready outcomes to a group commit on a goroutine of
// its own, which ends by sending its answer (committed).
func (r *run) startCommit() {
	outs := r.ready
	r.ready, r.committing, r.inCommit = nil, true, len(outs)
	go func() { r.commitDone <- committed{outs, r.e.commit(outs)} }()
}

// committed moves the results of a group commit to the next pass.
func (r *run) committed(c committed) {
	r.committing, r.inCommit = false, 0
	r.sum.add(c.fix)
	if err := r.e.storage.verdict(false); err != nil && !r.stopping {
		r.err, r.stopping, r.over = err, true, true // gave up: the mirror cannot be written
	}
	for _, o := range c.outs {
		res := o.res
		res.ForHint = o.job.en.Hinted() // a hint that came while it was out stays
		r.results = append(r.results, res)
		if o.news || o.job.en.Modified.IsZero() && (o.linked || o.res.File != "") {
			r.news = true // see passDue
		}
		if o.rec != nil {
			r.history = append(r.history, *o.rec)
		}
	}
}

// pending returns how many finished claimed lines wait for a pass.
func (r *run) pending() int { return len(r.ready) + r.inCommit + len(r.results) }

// workersIdle reports whether the workers have nothing to fetch and the
// last pass gave them nothing: the end of a crawl, or a pause in it. A
// refresh, whose passes wait for every claim to come back, has nothing
// queued at each pass, but is idle only once a pass sends nothing.
func (r *run) workersIdle() bool { return r.jobs.state().queued == 0 && r.sent == 0 }

func (r *run) publishProgress() {
	s := r.sum
	s.InFlight = len(r.inflight)
	r.e.obs.progress.set(s)
}

// drain ends the fetching: claimed lines no worker took go back to the
// pool, lines waiting to be fetched ahead are forgotten, and the fetches
// in flight get the stop grace to finish before they are cancelled. The
// workers end once they find the jobs closed.
func (r *run) drain(cancelFetches func()) {
	e := r.e
	r.stopping = true
	r.stopSitemaps() // what it read goes into the last pass
	if r.ctx.Err() != nil && len(r.inflight) > 0 {
		e.log.Info("stopping: waiting for the fetches in flight", "in_flight", len(r.inflight), "at_most", e.cfg.StopGrace)
	}
	handBack := func(left []job) {
		for _, j := range left {
			r.take(&outcome{job: j, res: list.Result{URL: j.en.URL}, epoch: j.epoch}) // State 0: handed back
		}
	}
	if r.ctx.Err() != nil {
		handBack(r.jobs.close()) // stopped: what no worker took goes back
	} else {
		r.jobs.finish() // ended on its own: the last claims are fetched
	}
	grace := time.NewTimer(e.cfg.StopGrace)
	defer grace.Stop()
	for !r.jobs.idle() {
		select {
		case o := <-r.outcomes:
			r.received(o)
		case c := <-r.commitDone:
			r.committed(c)
		case <-grace.C:
			handBack(r.jobs.close())
			cancelFetches()
		}
	}
	handBack(r.jobs.close()) // wakes the workers still waiting for a job
	if r.committing {
		r.committed(<-r.commitDone)
	}
	if r.filling {
		<-r.knownDone // its ctx ends it early if the spider was stopped
		r.filling = false
	}
	if len(r.ready) > 0 {
		outs := r.ready
		r.ready = nil
		r.committed(committed{outs, e.commit(outs)})
	}
}
