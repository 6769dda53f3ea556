package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// passResult is a pass's answer to the loop: the cycle as list.Run left
// it, the lines fetched ahead it carried, the history of the lines it
// claimed for the workers, and how long it took.
type passResult struct {
	c       *list.Cycle
	carried map[string]bool
	guesses []list.Add // the listings' guesses the pass added (Engine.listings)
	recs    map[string]meta.Record
	took    time.Duration
	err     error
}

// passDue reports whether the loop should run a pass now (passClock.due).
func (r *run) passDue(now time.Time) bool { return r.passClock().due(now) }

// wakeAt returns when passDue may become true with no other event
// (passClock.wakeAt).
func (r *run) wakeAt(now time.Time) time.Time { return r.passClock().wakeAt(now) }

// passClock takes what decides the next pass from the run.
func (r *run) passClock() passClock {
	return passClock{first: r.first, idleUntil: r.idleUntil, results: len(r.results), inflight: len(r.inflight),
		pending: r.pending(), q: r.jobs.state(), lastPass: r.lastPass, spacing: r.spacing, flush: r.e.cfg.Flush, news: r.news}
}

// startPass builds the next pass and runs it on a goroutine of its own,
// which ends by sending its answer (passResult). The history of the
// results it records goes to the historian first: the pass reads it.
func (r *run) startPass() {
	r.hist.add(r.history, r.workersIdle())
	r.history = nil
	c, carried, cands := r.cycle()
	r.count(c, c.Now)
	again := r.hints.again(c.Now)
	r.hints.note(c.Add, c.Now)
	c.Add = append(c.Add, again...)
	r.passing, r.idleUntil, r.news = true, time.Time{}, false
	e := r.e
	go func() { r.passDone <- e.runPass(r.ctx, r.hist, c, carried, cands) }()
}

// runPass runs one pass, with the guesses of the listings among cands,
// and reads the history of the lines it claimed: off the loop's goroutine.
func (e *Engine) runPass(ctx context.Context, hist *historian, c *list.Cycle, carried map[string]bool, cands []candidate) passResult {
	began := time.Now()
	p := passResult{c: c, carried: carried, guesses: e.listings(hist, cands)}
	c.Add = append(c.Add, p.guesses...)
	if cp, counting := c.Pick.(*countingPicker); counting {
		cp.weigh(e.listProfiles(ctx))
	}
	p.err = e.list.Run(ctx, c)
	if p.err == nil {
		p.recs = e.records(hist, c.Claimed, c.HintedClaims, carried)
	}
	if cp, counting := c.Pick.(*countingPicker); counting && p.err == nil && !offersEveryLine(e.list) {
		if err := cp.recount(ctx, e.list); err != nil {
			e.log.Warn("list not read for the account; it counts the claim's candidates only", "err", err)
		}
	}
	p.took = time.Since(began)
	return p
}

// cycle builds the next pass from what the workers produced: the links,
// the committed results, and a picker that claims the lines fetched ahead
// it carries, and tops the lines claimed the usual way back up to the
// profile's batch. Lines claimed as fetched ahead do not count against the
// batch, so fetching ahead never keeps shallower lines waiting. The hints
// among the links (a hub's news, a sitemap's lastmod) go to the history
// as announcements; guesses (a page changed with one gone, and those of
// the listings among cands, which runPass adds) are hints too, but no
// announcement: status counts announced pages that reached the mirror
// within the fast window, which a guess is not.
func (r *run) cycle() (*list.Cycle, map[string]bool, []candidate) {
	e := r.e
	now := e.cfg.Now()
	adds, guesses, cands, carried := r.jobs.forPass()
	r.hist.announce(adds, now)
	r.announced = len(adds)
	c := &list.Cycle{
		Spider: e.cfg.Spider, Now: now, Started: e.obs.progress.started, Lease: e.cfg.Lease,
		Add: append(adds, guesses...), Results: r.results, ReleaseOwn: r.first,
	}
	r.results = nil
	r.handBackRefreshes(c)
	if r.first {
		for _, s := range e.cfg.Starts {
			c.Add = append(c.Add, list.Add{URL: s, Level: 0})
		}
	}
	usual := 0
	for _, l := range r.inflight {
		if !l.ahead {
			usual++
		}
	}
	for _, res := range c.Results {
		if l, ok := r.inflight[res.URL]; ok && !l.ahead {
			usual-- // recorded by this pass: no longer in flight
		}
	}
	want := e.cfg.Profile.Batch - usual
	skip := e.polite.retry.skip(now)
	// With a polite delay the budget the due lines leave goes to early
	// refreshes (claim.Picker.Early), by the spider whose profile has no
	// level limit: it refreshes every level early, and the host's turns
	// another spider's early refreshes take are taken from its due work
	// (the spiders of a list share each host's pace). With no delay, every
	// spider's spare capacity goes to early refreshes and to every page
	// by the profile's Shortest (claim.Picker.Unpaced); a run that stops
	// when idle takes only what is due.
	early := e.cfg.Delay > 0 && !e.cfg.UntilIdle && e.cfg.Profile.MaxLevel < 0
	unpaced := e.unpaced()
	k := &claim.Picker{P: e.cfg.Profile, Now: now, Skip: skip, Backlog: r.backlog, Early: early, Unpaced: unpaced}
	switch {
	case !e.storage.pausedUntil(time.Now()).IsZero():
		// The mirror cannot be written: claim nothing until the back-off
		// ends (storage.go).
	case len(carried) > 0:
		c.Pick = &aheadPicker{Picker: k, ahead: carried, want: max(want, 0)}
	case want > 0:
		k.Want = want
		c.Pick = k
	}
	c.Extra = r.status(now)
	return c, carried, cands
}

// status is what the spider publishes with each pass (Status).
func (r *run) status(now time.Time) []byte {
	p, s := r.e.cfg.Profile, r.sum
	arch, slow, errs := r.e.obs.snapshot(now.Add(-24 * time.Hour))
	cut, capped := r.e.follow.traps.snapshot()
	delay := r.e.cfg.Delay.Seconds()
	st := profileStatus(p)
	st.DelaySec = &delay
	st.Fetched, st.Unchanged, st.Errors, st.Archived, st.Disallowed = s.Fetched, s.Unchanged, s.Errors, s.Archived, s.Disallowed
	st.InFlight, st.ArchivedLastDay, st.SlowestHosts, st.FrequentErrors = len(r.inflight), arch, slow, errs
	st.Filtered, st.CappedPatterns, st.Sitemaps = cut, capped, r.e.obs.sitemaps()
	st.Turnovers = r.e.navs.turnovers()
	b, _ := json.Marshal(st)
	return b
}

// afterPass applies a pass's answer: results recorded leave the lines in
// flight, the claims of lines fetched ahead are decided, the lines claimed
// the usual way queue for the workers, and the loop learns whether the run
// is over or idle.
func (r *run) afterPass(p passResult) {
	e, c := r.e, p.c
	if p.err != nil {
		if r.ctx.Err() == nil || r.neverRan(p.err) {
			r.err = p.err
		}
		r.requeue(c) // nothing was written: keep what the pass carried
		r.over = true
		return
	}
	r.first = false
	r.hints.note(p.guesses, c.Now)         // sent again as the pass's own hints are
	held := r.backlog                      // the rule this pass applied
	refreshes := r.jobs.refreshesWaiting() // claimed by earlier passes
	r.lastPass, r.spacing = time.Now(), max(4*p.took, time.Millisecond)
	e.beat(c.Now)
	r.tallyPass(c)
	r.counted(c)
	e.kickPublish()
	for _, res := range c.Results {
		delete(r.inflight, res.URL)
	}
	r.adapt(c) // before the claims go out: their links follow the new setting
	// The new budget of links before the claims go out: a worker that
	// fetched a line of this pass before the reset would spend the last
	// pass's budget, and its links would be held back.
	e.follow.newPass()
	epoch := e.lease.current()
	r.queueClaims(p, epoch)
	r.noteBacklog(c, held, refreshes)
	r.wantSitemaps(c.Claimed, c.Now)
	r.offerHeld(epoch) // after the claims: the lines fetched ahead know them
	e.log.Debug("pass", "spider", e.cfg.Spider, "lines", c.Stats.Lines, "added", c.Stats.Added,
		"recorded", c.Stats.Recorded, "claimed", c.Stats.Claimed, "due", c.Stats.Due, "lowered", c.Stats.Lowered,
		"taken_back", c.Stats.TakenBack, "held", c.Stats.HeldSec, "to_fetch", r.sent)
	if r.ctx.Err() != nil || e.cfg.MaxCycles > 0 && r.sum.Cycles >= e.cfg.MaxCycles {
		r.over = true
		return
	}
	// Whether the spider is idle, not whether a pass is due (passClock.due,
	// whose "nothing left" does not look at links): nothing claimed or in
	// flight, no outcome waiting, nothing fetched ahead, and no link or
	// guess waiting for a pass, which would have news for the list.
	if len(r.inflight) == 0 && len(c.Claimed) == 0 && r.pending() == 0 && r.jobs.state().items == 0 && !r.jobs.pendingAdds() {
		r.nothingInFlight(c, held)
	}
}

// queueClaims decides the claims of the lines fetched ahead that pass p
// carried and queues the lines it claimed the usual way for the workers,
// most urgent first.
func (r *run) queueClaims(p passResult, epoch int64) {
	e, c := r.e, p.c
	mine, ready := r.jobs.decide(p.carried, c.Claimed, epoch)
	for _, o := range ready {
		r.take(o)
	}
	var js []job
	for _, en := range c.Claimed {
		if StartLine(en) {
			e.widenScope(en.URL) // a start URL seeded while running
		}
		r.inflight[en.URL] = claimedLine{ahead: mine[en.URL], first: en.Modified.IsZero()}
		r.starts.claimed(en)
		if !mine[en.URL] {
			r.hints.fetching(en.URL)
			js = append(js, job{en: en, epoch: epoch, rec: p.recs[en.URL]})
			if r.filling {
				r.claimedMeanwhile = append(r.claimedMeanwhile, en)
			}
		}
	}
	r.sent = len(js)
	var less func(a, b *list.Entry) bool
	if c.Pick != nil {
		less = c.Pick.Less
	}
	r.jobs.addClaimed(js, c.HintedClaims, p.recs, less)
	if len(ready) > 0 {
		r.checkStarts() // the outcomes taken may be the last a failed start waited for
	}
}

// idleWait is how long an idle spider waits for a line to become due: until
// the earliest time the picker saw, or a poll interval, since other spiders
// add lines too. While another spider visits pages for the first time
// (a first mirror shared with a spider of fewer levels), the lines it
// finds are this spider's to take: it looks again as soon as its pass
// spacing allows, at most ten times a second, so the host's budget does
// not idle while it sleeps. A spider that stops when idle looks once a
// flush interval instead: it stops when the other made no progress from
// one look to the next (afterPass), which takes a span that long.
func (r *run) idleWait(c *list.Cycle) time.Duration {
	d := r.e.cfg.idlePoll()
	switch {
	case c.Stats.FirstElsewhere == 0:
	case r.e.cfg.UntilIdle:
		d = min(d, r.e.cfg.Flush)
	default:
		d = min(d, max(r.spacing, 100*time.Millisecond))
	}
	if k := basePicker(c.Pick); k != nil && !k.Next().IsZero() {
		if until := k.Next().Sub(r.e.cfg.Now()); until < d {
			d = max(until, 10*time.Millisecond)
		}
	}
	return d
}

// basePicker returns the claim.Picker under a pass's picker, whether it
// counts (countingPicker), carries lines fetched ahead (aheadPicker),
// both, or neither; nil for a pass that claims nothing.
func basePicker(p list.Picker) *claim.Picker {
	if cp, counting := p.(*countingPicker); counting {
		p = cp.policyPicker
	}
	switch k := p.(type) {
	case *aheadPicker:
		return k.Picker
	case *claim.Picker:
		return k
	}
	return nil
}

// requeue puts a failed pass's inputs back for the next attempt: the
// links announced already, and the rest (the guesses, the hints sent
// again, and on a first pass the start URLs, which carry no hint) as
// guesses, so that a retry does not announce them.
func (r *run) requeue(c *list.Cycle) {
	n := min(r.announced, len(c.Add))
	r.jobs.putBack(c.Add[:n:n], c.Add[n:]) // [:n:n]: putBack appends to it
	r.results = append(c.Results, r.results...)
}

// tallyPass adds what pass c did to the run's totals (cycles, lines
// added and dropped, its statistics) and logs the torn line it dropped
// and the claims it took back.
func (r *run) tallyPass(c *list.Cycle) {
	if c.Stats.TornBytes > 0 {
		r.e.log.Warn("dropped a torn last line of the list, left by a writer that died", "bytes", c.Stats.TornBytes)
	}
	if c.Stats.TakenBack > 0 {
		r.e.log.Info("claims returned to the pool (of dead or stalled spiders, or this spider's own on start and stop)", "lines", c.Stats.TakenBack)
	}
	r.sum.Cycles++
	r.sum.Added += c.Stats.Added
	r.sum.Dropped += c.Stats.Dropped
	r.sum.LastCycle = c.Stats
}

// neverRan reports whether err, the error of a pass when the run's
// deadline had passed, means the run did nothing it was asked to: no pass
// ever ran, because the list's lock stayed held all along (a stalled
// spider). A stop by a signal is not an error.
func (r *run) neverRan(err error) bool {
	var lw *list.LockWaitError
	return r.sum.Cycles == 0 && errors.As(err, &lw) && errors.Is(err, context.DeadlineExceeded)
}

// last runs the run's last pass: it records what finished and hands every
// other claim back. The mirror's index is published, and the history's
// last records stored, beside it. It runs even though ctx is cancelled,
// but not forever.
func (r *run) last(stopHistory func()) {
	e := r.e
	lctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 30*time.Second)
	defer cancel()
	// Both goroutines are this function's; it waits for both before it
	// returns.
	published, stored := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(published)
		e.publish(true)
	}()
	r.hist.add(r.history, true)
	r.history = nil
	c, _, cands := r.cycle()
	c.ReleaseOwn, c.Pick = true, nil
	c.Add = append(c.Add, e.listings(r.hist, cands)...)
	go func() {
		defer close(stored)
		stopHistory()
	}()
	if r.sum.Cycles == 0 && len(c.Results) == 0 {
		// No pass ran: the spider claimed nothing and has nothing to
		// record, so it does not wait again for a lock that a stalled
		// holder may keep.
		<-stored
		<-published
		return
	}
	if err := e.list.Run(lctx, c); err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("last pass: %w", err)
		} else {
			e.log.Warn("last pass failed too", "err", err)
		}
	} else {
		r.tallyPass(c)
	}
	<-stored
	<-published
}
