package crawl

import (
	"sync"

	"github.com/spider-mirror/spider/list"
)

// jobs hands the fetch workers their lines and holds the state of fetching
// ahead (ahead.go). The loop adds the lines each pass claims and decides
// the claims of lines fetched ahead; each worker takes its next job itself
// and registers the links it found, so the chain of pages that makes a
// site deep goes from one fetch to the next without a round trip through
// the loop: the worker that found the next page of a chain fetches it, and
// the workers waiting are woken one at a time, each by the one before,
// while jobs remain, so the page's other links follow it rather than
// compete with it. A worker gets the lines a pass claimed first, in claim
// order, then the line fetched ahead found last: fetching ahead never holds
// back a claimed line. A line fetched ahead whose job still waited when a
// pass claimed it (decide) takes every other turn with the stack, so that
// the chain that makes a site deep goes on while the lines found before
// it are fetched, shallowest first: on a real wiki such a line, the Main
// Page's style sheet, once waited under the chain as it went 58 levels
// deep. One mutex guards it all, held only inside these
// methods, never while waiting for anything but the next job.
type jobs struct {
	mu       sync.Mutex
	more     *sync.Cond // a job was added, or the jobs were closed
	claimed  []job      // lines a pass claimed, in claim order
	waited   []job      // lines claimed while waiting to be fetched ahead, in claim order
	turn     bool       // the next job from the stack goes to waited instead, if any
	ahead    *ahead
	adds     []list.Add // links for the next pass
	working  int        // jobs a worker took whose outcome the loop has not received
	closed   bool       // the run is stopping: no more jobs
	draining bool       // the run is ending: the claimed lines left, then no more
}

func newJobs(a *ahead) *jobs {
	q := &jobs{ahead: a}
	q.more = sync.NewCond(&q.mu)
	return q
}

// take returns the next job, waiting for one; false once the jobs are
// closed. It wakes one more waiting worker if jobs remain. The job's line
// takes the level fetching ahead knows for it now, which may be lower than
// when it was claimed or found (levels.go).
func (q *jobs) take() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.closed {
			return job{}, false
		}
		j, ok := job{}, false
		switch {
		case len(q.claimed) > 0:
			j, ok = q.claimed[0], true
			q.claimed = q.claimed[1:]
		case len(q.waited) > 0 && (q.turn || q.draining || len(q.ahead.stack) == 0):
			j, ok = q.waited[0], true
			q.waited, q.turn = q.waited[1:], false
		case q.draining:
			return job{}, false // the last claims are taken: the run ends
		default:
			j, ok = q.ahead.pop()
			if !ok && len(q.waited) > 0 {
				continue // the stack held lost jobs alone: waited's turn
			}
			q.turn = ok
		}
		if ok {
			j.en.Level = q.ahead.level(j.en)
			q.working++
			if len(q.claimed) > 0 || len(q.waited) > 0 || len(q.ahead.stack) > 0 {
				q.more.Signal()
			}
			return j, true
		}
		q.more.Wait()
	}
}

// found registers the links of a worker's outcome with fetching ahead
// (which may fetch the new ones ahead, claimed in epoch) and queues those
// the next pass must carry: under one lock, so that a pass never carries
// a line fetched ahead without its link (forPass). It reports whether the
// loop takes the outcome now: always for a claimed line; for a line
// fetched ahead, only once a pass claimed it (ahead.done). It wakes one
// waiting worker if it stacked jobs: who takes one wakes the next.
func (q *jobs) found(o *outcome, maxLevel int, epoch int64) (take bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.register(o.job.en, o.adds, maxLevel, epoch)
	o.linked, o.adds = len(o.adds) > 0, nil
	if !o.job.ahead {
		return true
	}
	return q.ahead.done(o) != nil
}

// offer registers links of the page of from taken outside a fetch (the
// links the budget held back earlier in the run, held.go), as found does.
func (q *jobs) offer(from list.Entry, adds []list.Add, maxLevel int, epoch int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.register(from, adds, maxLevel, epoch)
}

// register is the part of found and offer that registers links, under
// the lock. It wakes one waiting worker if it stacked jobs (if a worker
// found them, it takes one itself once the loop has its outcome).
func (q *jobs) register(from list.Entry, adds []list.Add, maxLevel int, epoch int64) {
	before := len(q.ahead.stack)
	q.adds = append(q.adds, q.ahead.links(from, adds, maxLevel, epoch, !q.closed && !q.draining)...)
	if len(q.ahead.stack) > before {
		q.more.Signal()
	}
}

// pendingAdds reports whether links wait for the next pass.
func (q *jobs) pendingAdds() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.adds) > 0
}

// received notes that the loop received the outcome of a job taken.
func (q *jobs) received() {
	q.mu.Lock()
	q.working--
	q.mu.Unlock()
}

// addClaimed queues the lines a pass claimed the usual way, and the lines
// that moved up with them (ahead.claimed) for the next pass.
func (q *jobs) addClaimed(js []job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, j := range js {
		q.adds = append(q.adds, q.ahead.claimed(j.en)...)
	}
	q.claimed = firstVisitsFirst(q.claimed, js)
	if len(js) > 0 {
		q.more.Signal() // who takes one wakes the next
	}
}

// firstVisitsFirst queues the claimed lines js after those queued: lines
// never visited before any refresh, each kind in claim order. A pass
// claims them first (internal/claim); they must not wait behind the
// refreshes of an earlier pass either, or a chain of pages, one link a
// page, advances by one page a batch.
func firstVisitsFirst(queued, js []job) []job {
	out := make([]job, 0, len(queued)+len(js))
	for _, first := range []bool{true, false} {
		for _, list := range [][]job{queued, js} {
			for _, j := range list {
				if j.en.Modified.IsZero() == first {
					out = append(out, j)
				}
			}
		}
	}
	return out
}

// forPass returns the links the next pass carries and the lines fetched
// ahead whose claim it decides (ahead.carry): each such line's link is in
// the list already or among these links.
func (q *jobs) forPass() ([]list.Add, map[string]bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	adds := q.adds
	q.adds = nil
	return adds, q.ahead.carry()
}

// queueAdds queues lines for the next pass that no page links to (a
// sitemap lists them): they are not fetched ahead, and keep their hints.
func (q *jobs) queueAdds(adds []list.Add) {
	if len(adds) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.adds = append(q.adds, adds...)
}

// putBack returns the links of a pass that failed, for the next one.
func (q *jobs) putBack(adds []list.Add) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.adds = append(adds, q.adds...)
}

// decide applies a pass's claims to the lines fetched ahead it carried
// (ahead.decide). The jobs of those claimed that no worker has taken yet
// leave the stack for waited, in claim order (the picker's, by level).
func (q *jobs) decide(carried map[string]bool, claimed []list.Entry, epoch int64) (mine map[string]bool, ready []*outcome) {
	q.mu.Lock()
	defer q.mu.Unlock()
	mine, ready = q.ahead.decide(carried, claimed, epoch)
	if waiting := q.ahead.unstack(mine); len(waiting) > 0 {
		for _, en := range claimed {
			if j, ok := waiting[en.URL]; ok {
				j.epoch, j.en.Level = epoch, min(j.en.Level, en.Level)
				q.waited = append(q.waited, j)
			}
		}
		q.more.Signal()
	}
	return mine, ready
}

// jobsState is what the loop needs to know of the jobs to decide on a pass.
type jobsState struct {
	queued int  // jobs waiting for a worker or held by one
	items  int  // lines fetched ahead not handed on yet
	open   int  // lines fetched ahead whose claim no pass decided
	ahead  bool // fetching ahead is on
}

func (q *jobs) state() jobsState {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.ahead
	return jobsState{queued: len(q.claimed) + len(q.waited) + len(a.stack) + q.working, items: len(a.items), open: a.open, ahead: a.on}
}

// finish lets the workers fetch the claimed lines left and nothing more:
// the lines waiting to be fetched ahead are forgotten, and take returns
// false once no claimed line is left (a run that ends on its own, not
// stopped: MaxCycles, a pass that failed).
func (q *jobs) finish() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.draining = true
	q.ahead.drain()
	q.more.Broadcast()
}

// idle reports whether no claimed line waits and no worker holds a job.
func (q *jobs) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.claimed) == 0 && len(q.waited) == 0 && q.working == 0
}

// close ends the handing out: it returns the claimed lines no worker took,
// forgets the lines waiting to be fetched ahead, and wakes every worker
// waiting in take.
func (q *jobs) close() []job {
	q.mu.Lock()
	defer q.mu.Unlock()
	left := append(q.claimed, q.waited...)
	q.claimed, q.waited, q.closed = nil, nil, true
	q.ahead.drain()
	q.more.Broadcast()
	return left
}
