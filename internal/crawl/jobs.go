package crawl

import (
	"slices"
	"sync"

	"github.com/spider-mirror/spider/internal/meta"
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
// compete with it. A worker gets the lines a pass claimed first, most
// urgent first (byUrgency), but for a paced host another worker already
// waits for (turns.go: the next worker takes the host's next line when
// its turn comes), then the first job of fetching ahead's queue (the
// deepest, found last): fetching ahead holds back no claimed line a
// worker could take. A line fetched
// ahead whose job still waited when a pass claimed it (decide) keeps its
// place in the queue, and the lines so claimed also take every other turn
// with the queue, in claim order: the chain that makes a site deep goes on
// while the lines found before it are fetched, shallowest first. On a
// real wiki such a line, the Main Page's style sheet, once waited under
// the chain as it went 58 levels deep; and a chain page claimed on its way
// to a worker once waited behind a thousand lines claimed before it. One
// mutex guards it all, held only inside the methods of jobs (here, and
// those of turns.go, backlog.go and ahead_adapt.go), never while waiting
// for anything but the next job.
type jobs struct {
	mu       sync.Mutex
	more     *sync.Cond   // a job was added, or the jobs were closed
	claimed  []job        // lines a pass claimed, most urgent first (byUrgency)
	waited   []*aheadItem // lines claimed while queued to be fetched ahead, in claim order; those taken since are skipped
	turn     bool         // the next job from the queue goes to waited instead, if any
	ahead    *ahead
	adds     []list.Add  // links for the next pass
	guesses  []list.Add  // hints for the next pass that are no announcement (outcome.guesses)
	listed   []candidate // pages linked by hubs whose links changed, for the next pass (outcome.listed)
	working  int         // jobs a worker took whose outcome the loop has not received
	closed   bool        // the run is stopping: no more jobs
	draining bool        // the run is ending: the claimed lines left, then no more
	// paced says whether a host's requests take turns (politeness.paced);
	// lining holds, per such host, the wait of the worker that took a
	// job of it and waits for its turn (turns.go).
	paced  func(host string) bool
	lining map[string]*turnWait
}

func newJobs(a *ahead) *jobs {
	q := &jobs{ahead: a, lining: map[string]*turnWait{}}
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
	for !q.closed {
		if j, ok := q.next(); ok {
			j.en.Level = q.ahead.level(j.en)
			q.working++
			if len(q.claimed) > 0 || q.ahead.queued > 0 {
				q.more.Signal()
			}
			return j, true
		}
		if q.draining && len(q.claimed) == 0 {
			return job{}, false // the last claims are taken: the run ends
		}
		q.more.Wait()
	}
	return job{}, false
}

// next returns the next job, if any: a line claimed the usual way whose
// host no worker waits for (turns.go), else the queue's and the waited
// lines' in turn.
func (q *jobs) next() (job, bool) {
	if j, ok := q.nextClaimed(); ok {
		return j, true
	}
	if q.turn || q.draining {
		if j, ok := q.nextWaited(); ok {
			q.turn = false
			return j, true
		}
	}
	if j, ok := q.ahead.pop(); ok {
		q.turn = true
		return j, true
	}
	return q.nextWaited() // the queue held lost jobs alone: waited's turn
}

// nextWaited returns the job of the first waited line still queued.
func (q *jobs) nextWaited() (job, bool) {
	for len(q.waited) > 0 {
		it := q.waited[0]
		q.waited[0] = nil
		q.waited = q.waited[1:]
		if it.queued {
			j := q.ahead.take(it)
			j.inOrder = true
			return j, true
		}
	}
	return job{}, false
}

// found registers the links of a worker's outcome with fetching ahead
// (which may fetch the new ones ahead, claimed in epoch) and queues those
// the next pass must carry: under one lock, so that a pass never carries
// a line fetched ahead without its link (forPass). It reports whether the
// loop takes the outcome now: always for a claimed line; for a line
// fetched ahead, only once a pass claimed it (ahead.done). It wakes one
// waiting worker if it queued jobs: who takes one wakes the next.
func (q *jobs) found(o *outcome, maxLevel int, epoch int64) (take bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	mode := fetchNow
	if o.job.inOrder {
		mode = fetchLater
	}
	q.register(o.job.en, o.adds, maxLevel, epoch, mode)
	q.guesses = append(q.guesses, o.guesses...)
	q.listed = append(q.listed, o.listed...)
	o.linked = len(o.adds) > 0
	o.news = len(o.guesses) > 0 || len(o.listed) > 0 || slices.ContainsFunc(o.adds, hinted)
	o.adds, o.guesses, o.listed = nil, nil, nil
	if !o.job.ahead {
		return true
	}
	return q.ahead.done(o) != nil
}

// hinted reports whether a carries a hint: a hub announced its page.
func hinted(a list.Add) bool { return !a.Hint.IsZero() }

// offer registers links of the page of from taken outside a fetch (the
// links the budget held back earlier in the run, held.go), as found does.
func (q *jobs) offer(from list.Entry, adds []list.Add, maxLevel int, epoch int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.register(from, adds, maxLevel, epoch, fetchLater)
}

// register is the part of found and offer that registers links, under
// the lock. It wakes one waiting worker if it queued jobs (if a worker
// found them, it takes one itself once the loop has its outcome).
func (q *jobs) register(from list.Entry, adds []list.Add, maxLevel int, epoch int64, mode fetchMode) {
	if q.closed || q.draining {
		mode = noFetch
	}
	before := q.ahead.queued
	q.adds = append(q.adds, q.ahead.links(from, adds, maxLevel, epoch, mode)...)
	if q.ahead.queued > before {
		q.more.Signal()
	}
}

// pendingAdds reports whether links or guesses wait for the next pass.
func (q *jobs) pendingAdds() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.adds) > 0 || len(q.guesses) > 0 || len(q.listed) > 0
}

// received notes that the loop received the outcome of a job taken.
func (q *jobs) received() {
	q.mu.Lock()
	q.working--
	q.mu.Unlock()
}

// addClaimed queues the lines a pass claimed the usual way, and the lines
// that moved up with them (ahead.claimed) for the next pass. less is the
// pass's order of urgency (its Picker's Less); nil puts first visits first.
// The claimed lines still queued whose URL is in hinted, which the list
// says are hinted (list.Cycle.HintedClaims), are marked so as it did, and
// take their history from recs, which holds the announcement: a hub
// announced a change after this spider claimed them (one another spider
// polled, most often), and the visit, not yet begun, answers it (its
// result says ForHint; revisit takes the change as announced). They
// move up as a hinted line claimed now would: an announced page does not
// wait behind the refreshes claimed before it, nor is it visited again
// for the hint.
func (q *jobs) addClaimed(js []job, hinted []string, recs map[string]meta.Record, less func(a, b *list.Entry) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, j := range js {
		q.adds = append(q.adds, q.ahead.claimed(j.en)...)
	}
	if len(hinted) > 0 {
		set := make(map[string]bool, len(hinted))
		for _, u := range hinted {
			set[u] = true
		}
		for i := range q.claimed {
			j := &q.claimed[i]
			if set[j.en.URL] && !j.en.Modified.IsZero() && !j.en.Hinted() {
				j.en.Due = j.en.Modified
				if rec, ok := recs[j.en.URL]; ok {
					j.rec = rec
				}
			}
		}
	}
	q.claimed = byUrgency(q.claimed, js, less)
	if len(js) > 0 {
		q.more.Signal() // who takes one wakes the next
	}
}

// byUrgency queues the claimed lines js with those queued, most urgent
// first by less, each pass's lines in claim order and a pass's before the
// next's among equals. A pass claims the most urgent lines first
// (internal/claim), but a paced spider's queue outlasts its pass: a line
// a later pass claims must not wait behind the less urgent lines of an
// earlier one: the start page due at its interval behind a batch of first
// visits and refreshes (its announcements then miss the fast window), or a
// first visit behind refreshes (a chain of pages, one link a page, would
// advance by one page a batch).
func byUrgency(queued, js []job, less func(a, b *list.Entry) bool) []job {
	if less == nil {
		less = func(a, b *list.Entry) bool { return a.Modified.IsZero() && !b.Modified.IsZero() }
	}
	out := make([]job, 0, len(queued)+len(js))
	out = append(append(out, queued...), js...)
	slices.SortStableFunc(out, func(a, b job) int {
		switch {
		case less(&a.en, &b.en):
			return -1
		case less(&b.en, &a.en):
			return 1
		}
		return 0
	})
	return out
}

// forPass returns the links the next pass carries, its hints that are no
// announcement (guesses), the pages linked by hubs whose links changed
// (listed: guesses if they are listings), and the lines fetched ahead
// whose claim it decides (ahead.carry): each such line's link is in the
// list already or among these links.
func (q *jobs) forPass() (adds, guesses []list.Add, listed []candidate, carried map[string]bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	adds, guesses, listed = q.adds, q.guesses, q.listed
	q.adds, q.guesses, q.listed = nil, nil, nil
	return adds, guesses, listed, q.ahead.carry()
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

// putBack returns the links and guesses of a pass that failed, for the
// next one.
func (q *jobs) putBack(adds, guesses []list.Add) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.adds = append(adds, q.adds...)
	q.guesses = append(guesses, q.guesses...)
}

// decide applies a pass's claims to the lines fetched ahead it carried
// (ahead.decide). Those claimed that no worker has taken yet join waited,
// in claim order (the picker's, by level), and keep their place in the
// queue: whichever turn comes first takes them.
func (q *jobs) decide(carried map[string]bool, claimed []list.Entry, epoch int64) (mine map[string]bool, ready []*outcome) {
	q.mu.Lock()
	defer q.mu.Unlock()
	mine, ready, waiting := q.ahead.decide(carried, claimed, epoch)
	if len(waiting) > 0 {
		q.waited = append(q.waited, waiting...)
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
	return jobsState{queued: len(q.claimed) + a.queued + q.working, items: len(a.items), open: a.open, ahead: a.on}
}

// refreshesWaiting counts the claimed lines visited before (refreshes)
// that no worker has taken yet.
func (q *jobs) refreshesWaiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, j := range q.claimed {
		if !j.en.Modified.IsZero() {
			n++
		}
	}
	return n
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
	return len(q.claimed) == 0 && q.ahead.claimedWaiting == 0 && q.working == 0
}

// close ends the handing out: it returns the claimed lines no worker took,
// forgets the lines waiting to be fetched ahead, and wakes every worker
// waiting in take.
func (q *jobs) close() []job {
	q.mu.Lock()
	defer q.mu.Unlock()
	left := q.claimed
	for _, it := range q.waited {
		if it.queued {
			left = append(left, q.ahead.take(it))
		}
	}
	q.claimed, q.waited, q.closed = nil, nil, true
	q.ahead.drain()
	q.more.Broadcast()
	return left
}
