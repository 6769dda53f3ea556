package crawl

import "slices"

// Host turns on the workers' side. A paced host grants one request at a
// time (polite.go), and within this process one worker at a time waits
// for the host's turn. A worker that took a line and then waited behind
// the others for its turn held the line where no line claimed later could
// pass it: the next page of a chain of "older posts", claimed as soon as
// the page before it was fetched, waited behind every refresh the workers
// had taken, up to one per worker, each a turn of the host's, and the
// chain crept along at a fraction of the host's pace. So a worker takes a
// line of a paced host only while no other worker of this process waits
// for that host's turn: the line fetched at a turn is chosen when the
// previous turn came, in the order of urgency of the lines then claimed
// (byUrgency), and the others stay in the queue for whichever worker
// comes next.

// turnWait is a worker's wait for its host's turn, from the moment it
// took its job until the turn came or the job ended without a request.
type turnWait struct {
	q    *jobs
	host string
	done bool // guarded by q.mu
}

// nextClaimed removes and returns the first claimed job whose host no
// worker waits for, if any, and marks its host as waited for if paced.
func (q *jobs) nextClaimed() (job, bool) {
	for i, j := range q.claimed {
		h := hostOf(j.en.URL)
		if q.lining[h] != nil {
			continue
		}
		if i == 0 {
			q.claimed[0] = job{}
			q.claimed = q.claimed[1:]
		} else {
			q.claimed = slices.Delete(q.claimed, i, i+1)
		}
		if q.paced != nil && q.paced(h) {
			w := &turnWait{q: q, host: h}
			q.lining[h] = w
			j.turn = w
		}
		return j, true
	}
	return job{}, false
}

// came ends w: its host's turn came, or its job ended without one. A
// worker may then take the next job of that host. It does nothing for a
// nil or ended w, so the worker calls it again once the job is done.
func (w *turnWait) came() {
	if w == nil {
		return
	}
	q := w.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.done {
		return
	}
	w.done = true
	if q.lining[w.host] == w {
		delete(q.lining, w.host)
	}
	if len(q.claimed) > 0 {
		q.more.Signal()
	}
}
