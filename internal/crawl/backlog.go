package crawl

import (
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// The backlog. While pages never visited wait, a spider spends the host's
// turns on them and not on refreshes (claim.Picker.Backlog), so a first
// mirror completes at the budget's rate whatever the windows: the loop
// notes after each pass whether the next applies that rule (noteBacklog),
// hands back the refreshes claimed before such pages were found
// (handBackRefreshes), and passes again at once when the backlog ends
// (nothingInFlight).

// noteBacklog sets the rule the next pass applies (claim.Picker.Backlog)
// after pass c, which applied held, claimed its lines, while refreshes
// claimed before it waited for a worker. Pages never visited are a
// backlog whoever holds them: no spider (c.Stats.Unvisited); another
// spider, whose first visits wait for the host's turns this spider would
// spend on refreshes (FirstElsewhere); this spider, which finds the next
// page of a chain of "older posts" in the page before it (refreshes
// claimed meanwhile took every other turn at a polite pace, and the
// chain, and the first mirror with it, ended at half the budget's rate).
func (r *run) noteBacklog(c *list.Cycle, held bool, refreshes int) {
	unclaimed := c.Stats.Unvisited+c.Stats.FirstElsewhere > 0
	r.backlog = unclaimed || r.fetchingFirst()
	if unclaimed && !held && refreshes > 0 {
		// Pages never visited wait that the pass could not claim: its
		// batch was full of refreshes claimed before they were found.
		// The next pass hands those back and claims the pages in their
		// room (handBackRefreshes): at once, not when the batch is
		// fetched, seconds later at a polite pace.
		r.news = true
	}
}

// fetchingFirst reports whether a line never visited is in flight.
func (r *run) fetchingFirst() bool {
	for _, l := range r.inflight {
		if l.first {
			return true
		}
	}
	return false
}

// handBack removes the claimed jobs no worker has taken that keep
// refuses, and returns them.
func (q *jobs) handBack(keep func(*list.Entry) bool) []job {
	q.mu.Lock()
	defer q.mu.Unlock()
	var back []job
	kept := q.claimed[:0]
	for _, j := range q.claimed {
		if keep(&j.en) {
			kept = append(kept, j)
		} else {
			back = append(back, j)
		}
	}
	clear(q.claimed[len(kept):])
	q.claimed = kept
	return back
}

// handBackRefreshes returns to the pool, with the pass c, the claimed
// lines no worker has taken yet that the policy no longer takes while
// pages never visited wait or are fetched (claim.Picker.Backlog): refreshes
// claimed before those pages were found. A paced spider's batch lasts
// seconds; without this, a page never visited (the next page of a chain
// of "older posts") waited for the batch's refreshes to be fetched
// before a pass could claim it, a page a batch. The pass claims again,
// most urgent first, in the room they leave.
func (r *run) handBackRefreshes(c *list.Cycle) {
	if !r.backlog {
		return
	}
	k := &claim.Picker{P: r.e.cfg.Profile, Now: c.Now, Backlog: true}
	back := r.jobs.handBack(func(en *list.Entry) bool {
		free := *en
		free.Spider = ""
		return k.Due(&free)
	})
	for _, j := range back {
		c.Results = append(c.Results, list.Result{URL: j.en.URL}) // State 0: returned unfetched
	}
	if len(back) > 0 {
		r.e.log.Debug("refreshes handed back for pages never visited", "lines", len(back))
	}
}

// nothingInFlight decides, after pass c, which applied held, left nothing
// in flight, whether the run is over, idle, or passes again at once.
func (r *run) nothingInFlight(c *list.Cycle, held bool) {
	e := r.e
	if until := e.storage.pausedUntil(time.Now()); !until.IsZero() {
		r.idleUntil = until // backing off, not idle: try again then
		return
	}
	// Other spiders' first visits may bring links: an idle spider
	// looks again as often as a spider records its results, and
	// one that stops when idle waits for them while they progress.
	seen := [2]int{c.Stats.FirstElsewhere, c.Stats.Lines}
	waitOthers := seen[0] > 0 && seen != r.elsewhere
	r.elsewhere = seen
	if held && !r.backlog {
		// The pass held refreshes back for pages that have had
		// their first visit since: they may be due now, and no
		// sleep of a backlogged picker foresaw it (claim.Picker.Next).
		return
	}
	if e.cfg.UntilIdle && !waitOthers && !r.maps.busy() {
		r.over = true
		return
	}
	r.idleUntil = time.Now().Add(r.idleWait(c)) // passDue reads the real clock
}
