package crawl

import (
	"slices"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// Fetching ahead. A first mirror of a deep site (a forum whose index pages
// link only their neighbours, a thousand pages deep) would otherwise need
// one pass per level, each waiting for the fetches of the level before, so
// its time would be the depth times a pass. Instead, while the links a
// spider finds are mostly new to the list, it fetches them at once, before
// any pass has claimed them, and the next pass claims them first.
//
// ahead is not safe for concurrent use: jobs (jobs.go) holds it under its
// lock, for the loop and the workers. The contract:
//
//   - links registers the new links of a fetched page and queues a job for
//     each one it fetches ahead (pop takes the last found first, and a
//     page's last link before the others, so the chain that makes a site
//     deep is fetched before the pages it fans out to: aheadqueue.go); jobs hands
//     those to workers only when no claimed line waits that a worker may
//     take (one of a paced host waits for the host's turn: turns.go), so
//     fetching ahead never holds back the level order; a job still waiting when a pass
//     claims its line keeps its place in the queue and also takes every
//     other turn in claim order (claimedWaiting, jobs.go), whichever
//     comes first, or a shallow line found early (the home page's style
//     sheet) would wait under every link found since, as long as the
//     chain goes on;
//   - a copy fetched ahead is never written before a pass claims its line:
//     done holds it until decide says whether the pass claimed the line
//     (the copy goes to the group commit) or not (another spider holds it,
//     or it is not due: the copy is forgotten);
//   - a line the list knew as visited before (a copy, a recorded visit) is
//     not fetched ahead: its answer could not be used, since a page is
//     fetched ahead without its history (visited, known.go);
//   - at most max jobs wait in the queue, and at most maxBytes of copies
//     wait for their pass; past either, links are only queued for the
//     pass. The jobs bound the work queued ahead of the workers, the bytes
//     what waits in memory; a fetch finished but not yet claimed holds no
//     job, so a slow pass (a large list, a busy disk) does not stop the
//     chain of a deep site as long as the workers keep up with it;
//   - while it is on, the graph of what was found keeps every line's
//     level the shortest link distance, whatever order the pages came in
//     (levels.go).
//
// It is on only while at least half of the links a pass carried for the
// first time in the run were new to the list (adapt), which is so for a
// first mirror, resumed or not, and not for a refresh.
type ahead struct {
	max      int   // Config.Ahead; 0 = never on
	maxBytes int64 // Config.AheadBytes

	on     bool
	items  map[string]*aheadItem // lines fetched ahead, from their link until their outcome is handed on
	queue  aheadQueue            // items whose job waits for a worker, and items no longer queued that pop skips
	seq    uint64                // items queued so far: their order of discovery
	queued int                   // items whose job waits for a worker
	// claimedWaiting counts the queued items a pass claimed: they take
	// turns in claim order too (jobs.go).
	claimedWaiting int
	held           int64       // bytes of the copies in items waiting for a pass
	open           int         // items whose claim no pass has decided yet
	graph          *linkGraph  // links found since it was turned on; nil while off
	known          knownLines  // the list's visited lines, read when it turns on
	recent         recentLinks // links the run's passes carried (adapt)
}

// aheadItem is a line fetched ahead, from its link until its outcome is
// handed on.
type aheadItem struct {
	state aheadState
	epoch int64    // of the pass that claimed it
	out   *outcome // the finished fetch, while the claim is undecided
	// The fetch to make, while queued: no worker has taken it yet.
	job    job
	queued bool
	first  bool   // the last link a page found (fetchNow): before other links (aheadqueue.go)
	seq    uint64 // when it was found, among the queued items
}

type aheadState int

const (
	undecided aheadState = iota
	claimedAhead
	lost
)

// maxSeen bounds the set of URLs a spider remembers while it fetches ahead
// (levels.go); past it, fetching ahead stops.
const maxSeen = 1 << 20

func newAhead(max int, maxBytes int64) *ahead {
	return &ahead{max: max, maxBytes: maxBytes, items: map[string]*aheadItem{}}
}

// set turns fetching ahead on or off; either way the graph starts anew.
func (a *ahead) set(on bool) (changed bool) {
	on = on && a.max > 0
	if on == a.on {
		return false
	}
	a.on, a.graph = on, nil
	if on {
		a.graph = newLinkGraph()
	}
	return true
}

// links takes the links found on the page of from and returns those the
// next pass must carry: all of them while off; while on, those new to the
// graph, those that moved up (levels.go), and the hints of the others (a
// hub's news of a page the graph knows: a topic it bumped). Unless mode
// is noFetch, it queues a job for each new link it fetches ahead,
// registered in epoch.
func (a *ahead) links(from list.Entry, adds []list.Add, maxLevel int, epoch int64, mode fetchMode) []list.Add {
	if !a.on {
		return adds
	}
	var out, jobs []list.Add
	moved := func(url string, level int) { out = append(out, list.Add{URL: url, Level: level}) }
	for _, l := range adds {
		isNew, level := a.graph.link(from.URL, from.Level, l.URL, l.Level, moved)
		if !isNew {
			// Fetched ahead or claimed already; moved queued what moved up.
			// A hint is news all the same: the list marks the line's copy.
			if !l.Hint.IsZero() {
				out = append(out, list.Add{URL: l.URL, Level: level, Hint: l.Hint})
			}
			continue
		}
		l.Level = level
		out = append(out, l)
		if mode == noFetch || a.queued+len(jobs) >= a.max || a.held >= a.maxBytes || maxLevel >= 0 && l.Level > maxLevel {
			continue
		}
		if _, busy := a.items[l.URL]; busy || a.known.has(l.URL) {
			continue // under way from before the graph was reset, or visited (known.go)
		}
		jobs = append(jobs, l)
	}
	a.open += len(jobs)
	a.queued += len(jobs)
	for i, l := range jobs {
		a.seq++
		it := &aheadItem{queued: true, first: mode == fetchNow && i == len(jobs)-1, seq: a.seq,
			job: job{en: list.Entry{URL: l.URL, Level: l.Level, State: list.Found}, epoch: epoch, ahead: true}}
		a.items[l.URL] = it
		a.queue.push(it)
	}
	if a.graph.full() {
		a.set(false)
	}
	return out
}

// fetchMode says whether and where links queues the jobs of the links it
// fetches ahead.
type fetchMode int

const (
	noFetch    fetchMode = iota // none: the spider is stopping
	fetchNow                    // found by a page the queue handed out: the last one goes first (aheadqueue.go)
	fetchLater                  // found by a page fetched on its turn in claim order: in order of finding
)

// claimed notes a line a pass claimed the usual way, so that it is not
// fetched ahead too; it returns the lines that moved up with it.
func (a *ahead) claimed(en list.Entry) []list.Add {
	if !a.on {
		return nil
	}
	var out []list.Add
	a.graph.claimed(en.URL, en.Level, func(url string, level int) { out = append(out, list.Add{URL: url, Level: level}) })
	return out
}

// level returns the level of en as the graph knows it now: lower than
// en's if, since its claim, a link to it turned up on a shallower page.
func (a *ahead) level(en list.Entry) int {
	if a.graph != nil {
		if level, seen := a.graph.level(en.URL); seen && level < en.Level {
			return level
		}
	}
	return en.Level
}

// drain forgets the jobs no worker has taken (the spider is stopping), but
// those of lines a pass claimed, which jobs fetches or hands back in
// claim order.
func (a *ahead) drain() {
	for _, it := range a.queue {
		if !it.queued || it.state == claimedAhead {
			continue
		}
		if it.state == undecided {
			a.open--
		}
		a.unqueue(it)
		a.forget(it)
	}
	a.queue = nil
}

// done takes the outcome of a fetch ahead. It returns the outcome if a pass
// claimed its line already, for the group commit; otherwise the outcome
// waits for decide, or is forgotten if its line was lost.
func (a *ahead) done(o *outcome) *outcome {
	url := o.res.URL
	it := a.items[url]
	if it == nil {
		return nil
	}
	switch it.state {
	case undecided:
		it.out = o
		a.held += o.size()
		return nil
	case claimedAhead:
		o.epoch = it.epoch
	case lost:
		o = nil
	}
	delete(a.items, url)
	return o
}

// carry returns the lines fetched ahead whose claim the next pass decides:
// all those not decided yet, since each one's link is queued for it.
func (a *ahead) carry() map[string]bool {
	var m map[string]bool
	for u, it := range a.items {
		if it.state == undecided {
			if m == nil {
				m = map[string]bool{}
			}
			m[u] = true
		}
	}
	return m
}

// decide applies what a pass claimed (in epoch) to the lines fetched ahead
// that it carried. It returns which claimed lines were such lines whose
// answer is taken, the outcomes already in hand for them, and, in claim
// order, those whose job still waits in the queue; a visited line's answer
// is not taken (it is fetched again, with its history), nor that of a line
// the pass did not claim.
func (a *ahead) decide(carried map[string]bool, claimed []list.Entry, epoch int64) (mine map[string]bool, ready []*outcome, waiting []*aheadItem) {
	mine = map[string]bool{}
	for _, en := range claimed {
		if !carried[en.URL] || visited(en) {
			continue
		}
		mine[en.URL] = true
		it := a.items[en.URL]
		it.state, it.epoch = claimedAhead, epoch
		a.open--
		switch {
		case it.out != nil:
			it.out.epoch = epoch
			a.held -= it.out.size()
			ready = append(ready, it.out)
			delete(a.items, en.URL)
		case it.queued:
			it.job.epoch, it.job.en.Level = epoch, min(it.job.en.Level, en.Level)
			a.claimedWaiting++
			waiting = append(waiting, it)
		}
	}
	for u := range carried {
		if mine[u] {
			continue
		}
		it := a.items[u]
		it.state = lost
		a.open--
		if it.out != nil {
			a.held -= it.out.size()
			delete(a.items, u)
		}
	}
	return mine, ready, waiting
}

// visited reports whether the line of a claimed entry may have a fetch
// history: a copy, a visit recorded, or a state only a fetch gives. A page
// fetched ahead was fetched without one, as a page never seen (no
// conditional request, no retry time, counts from zero), so its answer is
// taken only for a line that has none. Fetching ahead leaves the lines it
// knows visited alone (known.go), so this is for lines visited after it
// read the list, by another spider.
func visited(en list.Entry) bool {
	return en.File != "" || !en.Modified.IsZero() || en.State != list.Found && en.State != list.Claimed
}

// aheadPicker claims the lines fetched ahead that a pass carries before
// any other line, on top of the base picker's batch.
type aheadPicker struct {
	*claim.Picker
	ahead map[string]bool // read only during the pass
	want  int
}

// Due lets a line fetched ahead be claimed whenever it is due, even if its
// fetch failed meanwhile and put it in the retry backoff (Skip): its
// outcome is in hand and only a claim lets the pass record it. A visited
// line's outcome is not taken (decide), so the backoff applies to it as
// to any other line.
func (k *aheadPicker) Due(e *list.Entry) bool {
	if k.ahead[e.URL] && !visited(*e) {
		return claim.Due(k.P, e, k.Now)
	}
	return k.Picker.Due(e)
}

func (k *aheadPicker) Less(a, b *list.Entry) bool {
	if x, y := k.ahead[a.URL], k.ahead[b.URL]; x != y {
		return x
	}
	return k.Picker.Less(a, b)
}

func (k *aheadPicker) Max() int { return k.want + len(k.ahead) }

// Preferred names the lines fetched ahead, which a store that selects
// candidates by the profile (pglist.Preferring) offers first: a claim
// from a database would not reach a deep new line in a large backlog.
func (k *aheadPicker) Preferred() []string {
	urls := make([]string, 0, len(k.ahead))
	for u := range k.ahead {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	return urls
}

// adapt turns fetching ahead on while at least half of the distinct links
// a pass carried (adds) that no pass of the run carried before were new to
// the list, and off otherwise. Links carried before do not count: while
// fetching ahead is off, a pass carries every link of every page, and the
// links on every page (home, an index, a style sheet), known to the list,
// would keep it off even where all the others are new, as at the frontier
// of a resumed first mirror. A pass that carried nothing new to the run
// changes nothing. Turning it on takes minFresh such links, so that a new
// page or two in a refresh does not, unless the list held nothing before
// the pass (lines == added: a first mirror's first pass carries its start
// URLs alone); once on, it stays on for fewer.
//
// It turns fetching ahead off (or leaves it as it is) itself, and returns
// turnOn where it is to be turned on: the caller first reads the list's
// visited lines (known.go), which fetching ahead then leaves alone.
// decided is false for a pass that carried nothing new to the run.
func (a *ahead) adapt(adds []list.Add, added, lines int) (turnOn, decided bool) {
	fresh := 0
	for _, l := range adds {
		if !a.recent.seen(l.URL) {
			fresh++
		}
	}
	if fresh == 0 {
		return false, false
	}
	on := 2*added >= fresh
	if !on || a.on || a.max <= 0 {
		a.set(on)
		return false, true
	}
	return fresh >= minFresh || lines == added, true
}

// minFresh is how many links new to the run a pass must carry for adapt to
// turn fetching ahead on (but in a list empty before the pass).
const minFresh = 8
