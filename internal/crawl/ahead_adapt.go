package crawl

import "github.com/spider-mirror/spider/list"

// The loop's side of turning fetching ahead on and off (ahead.adapt in
// ahead.go), with the list's visited lines read first (known.go).

// adapt applies ahead.adapt to what a pass carried. Before it turns
// fetching ahead on, the list's visited lines are read on a goroutine of
// its own, owned by the loop, which ends by sending them (filled): the
// workers go on meanwhile.
func (r *run) adapt(c *list.Cycle) {
	was, now, turnOn, decided := r.jobs.adaptAhead(c.Add, c.Stats.Added, c.Stats.Lines)
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
		if r.jobs.turnAheadOn(nil, nil) {
			r.e.log.Debug("fetching ahead", "on", true)
		}
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
	turned := r.jobs.turnAheadOn(&f.k, r.claimedMeanwhile)
	r.claimedMeanwhile = nil
	if turned {
		r.e.log.Debug("fetching ahead", "on", true)
	}
}

// adaptAhead applies ahead.adapt to a pass's adds (of which added were
// new, in a list of lines): whether fetching ahead was on before and is
// after, and what adapt decided.
func (q *jobs) adaptAhead(adds []list.Add, added, lines int) (was, now, turnOn, decided bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	was = q.ahead.on
	turnOn, decided = q.ahead.adapt(adds, added, lines)
	return was, q.ahead.on, turnOn, decided
}

// turnAheadOn turns fetching ahead on, with the list's visited lines read
// (known; nil if the list held none) and the lines claimed the usual way
// while they were read (meanwhile: not to be fetched ahead too, the graph
// being new), and reports whether it turned it on (it was off).
func (q *jobs) turnAheadOn(known *knownLines, meanwhile []list.Entry) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if known != nil {
		q.ahead.known = *known
	}
	changed := q.ahead.set(true)
	for _, en := range meanwhile {
		q.ahead.claimed(en)
	}
	return changed
}
