package crawl

import "github.com/spider-mirror/spider/list"

// The loop's side of turning fetching ahead on and off (ahead.adapt in
// ahead.go), with the list's visited lines read first (known.go).

// adapt applies ahead.adapt to what a pass carried. Before it turns
// fetching ahead on, the list's visited lines are read on a goroutine of
// its own, owned by the loop, which ends by sending them (filled): the
// workers go on meanwhile.
func (r *run) adapt(c *list.Cycle) {
	q := r.jobs
	q.mu.Lock()
	was := q.ahead.on
	turnOn, decided := q.ahead.adapt(c.Add, c.Stats.Added, c.Stats.Lines)
	now := q.ahead.on
	q.mu.Unlock()
	if now != was {
		r.e.log.Debug("fetching ahead", "on", now)
	}
	if decided {
		r.fillWanted = turnOn // a pass since the read began may have changed its mind
	}
	if !turnOn || r.filling {
		return
	}
	if c.Stats.Lines == c.Stats.Added {
		// The list held nothing before this pass: no visited line to read.
		q.mu.Lock()
		q.ahead.set(true)
		q.mu.Unlock()
		r.e.log.Debug("fetching ahead", "on", true)
		return
	}
	r.filling, r.claimedMeanwhile = true, nil
	ctx, l := r.ctx, r.e.list
	go func() {
		var f knownFill
		f.err = f.k.fill(ctx, l)
		r.knownDone <- f
	}()
}

// knownFill is the list's visited lines, read for fetching ahead.
type knownFill struct {
	k   knownLines
	err error
}

// filled turns fetching ahead on with the visited lines read, unless a
// pass turned it off meanwhile (or the spider is stopping).
func (r *run) filled(f knownFill) {
	r.filling = false
	if f.err != nil && r.ctx.Err() == nil {
		r.e.log.Warn("list not read for its visited lines; fetching ahead may fetch some of them in vain", "err", f.err)
	}
	if r.stopping || !r.fillWanted {
		return
	}
	q := r.jobs
	q.mu.Lock()
	q.ahead.known = f.k
	on := q.ahead.set(true)
	for _, en := range r.claimedMeanwhile {
		q.ahead.claimed(en) // not to be fetched ahead too; the graph is new
	}
	q.mu.Unlock()
	r.claimedMeanwhile = nil
	if on {
		r.e.log.Debug("fetching ahead", "on", true)
	}
}
