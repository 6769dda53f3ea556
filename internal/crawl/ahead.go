package crawl

import (
	"context"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// Fetching ahead: a first mirror of a deep site (a forum whose index pages
// link only their neighbours, 1,000 pages deep) would otherwise need one
// pass per level, each waiting for the fetches of the level before, so its
// time would be the depth times a pass. Instead, while the links a spider
// finds are mostly new to the list, it fetches them at once, before any
// pass has claimed them, and the next pass claims them first. A page
// fetched ahead is written to the mirror only once claimed: its copy stays
// in memory until the pass decides, and is discarded if the pass could not
// claim the line (another spider holds it, or it is not due), or if the
// line turns out to have been visited before (visited): a page is fetched
// ahead as if never seen, without its fetch history. Links of a
// page fetched ahead are followed ahead at once, so the crawl of a chain
// runs at the speed of the network while passes run beside it, as often as
// their own cost allows.
//
// A fetch ahead that fails is recorded as any other once claimed (error,
// or archived for 404 and 410), unless the line was visited, and forgotten
// otherwise. The cost of fetching ahead is a request for each link that
// turns out not to be claimable or to be a visited line (rare: the
// visited lines are read from the list when fetching ahead turns on, and
// not fetched ahead, known.go), and memory: the copies wait for the pass
// that claims their lines, at most Config.Ahead of them and
// Config.AheadBytes in all (past either, fetching ahead pauses until a
// pass has taken them). It is on only while at least half of the distinct
// links a pass carried for the first time in the run were new to the list
// (adapt), which is so for a first mirror, resumed or not, and not for a
// refresh.

// aheadItem is a line fetched ahead, from its link until its outcome is
// handed on.
type aheadItem struct {
	state aheadState
	epoch int64    // of the pass that claimed it
	out   *outcome // the finished fetch, while the claim is undecided
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

// The last new link of a page is fetched ahead at once, and its other new
// links Config.AheadLag later (defaultAheadLag unless set). Answers to
// requests sent together arrive together, and the machine then handles
// them together: the answer the crawl's depth waits for (the next page of
// a listing, the last new link of its page) waited for its share of the
// CPU behind a dozen others, and so did the site's answer to the next
// request, when the site is as fast as the spider's own work (a site on
// the same machine, or a fast one nearby). Sent a moment later, the other
// answers arrive after it. On the test forum at 2 ms a request (scripts/
// bench-crawl, 10,000 topics), with 1 ms the site's answers to the chain
// of index pages reached the spider 0.1 ms sooner and its requests the
// site 0.15-0.2 ms sooner, and first mirrors took 4.22-4.77 s (median
// 4.45) against 4.33-4.83 s (4.56), ten interleaved runs each; against a
// site that takes tens of milliseconds to answer, a millisecond changes
// nothing.
const defaultAheadLag = time.Millisecond

// addLinks queues the links found on the page from (at from.Level) for the
// next pass, and fetches ahead the new ones. A link seen before is queued
// again only if it, or what it leads to, moves up (levels.go).
// Called with e.mu held.
func (e *Engine) addLinks(from list.Entry, adds []list.Add) {
	if !e.aheadOn {
		e.adds = append(e.adds, adds...)
		return
	}
	p := e.cfg.Profile
	var jobs []job
	for _, a := range adds {
		isNew, level := e.graph.link(from.URL, from.Level, a.URL, a.Level, e.moved)
		if !isNew {
			continue // fetched ahead or claimed already; moved queued what moved up
		}
		a.Level = level
		e.adds = append(e.adds, a)
		if len(e.ahead) >= e.cfg.Ahead || e.aheadHeld >= e.cfg.AheadBytes || e.stopping || p.MaxLevel >= 0 && a.Level > p.MaxLevel {
			continue
		}
		if _, busy := e.ahead[a.URL]; busy {
			continue // still under way from before the graph was reset (setAhead)
		}
		if e.known.has(a.URL) {
			continue // visited: a pass claims it, with its history (known.go)
		}
		// Registered now, so that the next pass carries it whether or
		// not its fetch has begun. Each job on the stack has its own key
		// in e.ahead until its fetch ends, and each token its job, so the
		// tokens in aheadq are at most Config.Ahead, its capacity: a send
		// never blocks.
		e.queued.Add(1)
		e.ahead[a.URL] = &aheadItem{}
		jobs = append(jobs, job{en: list.Entry{URL: a.URL, Level: a.Level, State: list.Found}, epoch: e.epoch.Load(), ahead: true})
	}
	if e.graph.full() {
		e.setAhead(false)
	}
	if len(jobs) == 0 {
		return
	}
	last := jobs[len(jobs)-1]
	if rest := jobs[:len(jobs)-1]; len(rest) > 0 && e.cfg.AheadLag > 0 {
		time.AfterFunc(e.cfg.AheadLag, func() { e.queueAhead(rest...) })
		jobs = []job{last}
	}
	e.stack = append(e.stack, jobs...)
	for range jobs {
		e.aheadq <- struct{}{}
	}
}

// queueAhead hands the workers the jobs of lines registered in e.ahead a
// lag ago (addLinks), but those a pass meanwhile found it could not claim,
// and, once the spider is stopping, those no pass claimed.
func (e *Engine) queueAhead(jobs ...job) {
	e.mu.Lock()
	n := 0
	for _, j := range jobs {
		if it := e.ahead[j.en.URL]; it == nil || it.state == lost || e.stopping && it.state == undecided {
			delete(e.ahead, j.en.URL)
			e.queued.Add(-1)
			continue
		}
		e.stack = append(e.stack, j)
		n++
	}
	e.mu.Unlock()
	for range n {
		e.aheadq <- struct{}{}
	}
	if n < len(jobs) {
		e.signal() // fewer jobs queued: a pass may be due
	}
}

// moved queues a URL known to the graph that moved up, for the next pass to
// lower its line. Called with e.mu held.
func (e *Engine) moved(url string, level int) {
	e.adds = append(e.adds, list.Add{URL: url, Level: level})
}

// nextAhead returns the link found last among those waiting to be fetched
// ahead: a worker takes one for each token of aheadq. Last in, first out
// goes deep first, so the chain of pages that makes a site deep (the
// "next page" link, last on an index page) is fetched before the pages
// each of its links fans out to, and the crawl's critical path is not
// queued behind them; the fan-out joins the stack a lag later
// (defaultAheadLag), so that its answers do not arrive with the chain's.
func (e *Engine) nextAhead() job {
	e.mu.Lock()
	defer e.mu.Unlock()
	j := e.stack[len(e.stack)-1]
	e.stack = e.stack[:len(e.stack)-1]
	return j
}

// setAhead turns fetching ahead on or off. Called with e.mu held.
func (e *Engine) setAhead(on bool) {
	on = on && e.cfg.Ahead > 0
	if on == e.aheadOn {
		return
	}
	e.aheadOn = on
	e.graph = nil
	if on {
		e.graph = newLinkGraph()
	}
	e.log.Debug("fetching ahead", "on", on)
}

// aheadDone takes the outcome of a fetch ahead. Called with e.mu held.
func (e *Engine) aheadDone(url string, o *outcome) {
	it := e.ahead[url]
	if it == nil {
		return
	}
	switch it.state {
	case undecided:
		it.out = o
		e.aheadHeld += o.size()
		return
	case claimedAhead:
		o.epoch = it.epoch
		e.taken(o)
		e.ready = append(e.ready, o)
	case lost:
		e.drop(o)
	}
	delete(e.ahead, url)
}

// taken notes the outcome of a fetch ahead that a pass took for its line:
// a page found gone is news only then (a line another spider holds, or a
// visited one, fetched again with its history, would be reported twice).
// Called with e.mu held.
func (e *Engine) taken(o *outcome) {
	if o.res.State == list.Archived {
		e.obs.archived(o.res.URL, o.res.Modified)
		e.log.Info("gone", "url", o.res.URL)
	}
}

// drop forgets the outcome of a fetch ahead whose line this spider did not
// claim. Called with e.mu held.
func (e *Engine) drop(o *outcome) {
	switch o.res.State {
	case list.Downloaded:
		e.sum.Fetched--
		if o.rec != nil {
			e.sum.Bytes -= o.rec.Size // as store counted it: the body served, not the copy
		}
	case list.Archived:
		e.sum.Archived--
	case list.Error:
		e.sum.Errors--
	case list.Disallowed:
		e.sum.Disallowed--
	}
}

// undecided returns the URLs fetched ahead whose claim the next pass
// decides: all those not decided yet, since each one's link is queued for
// that pass. Called with e.mu held.
func (e *Engine) undecided() map[string]bool {
	var m map[string]bool
	for u, it := range e.ahead {
		if it.state == undecided {
			if m == nil {
				m = map[string]bool{}
			}
			m[u] = true
		}
	}
	return m
}

// decide applies what a pass claimed to the lines fetched ahead that it
// carried, and reports which claimed URLs were such lines, but visited
// ones: their outcomes are dropped, as those of lines not claimed are.
func (e *Engine) decide(carried map[string]bool, claimed []list.Entry, epoch int64) map[string]bool {
	mine := map[string]bool{}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, en := range claimed {
		if !carried[en.URL] || visited(en) {
			continue // a visited line is fetched again, with its history
		}
		mine[en.URL] = true
		it := e.ahead[en.URL]
		it.state, it.epoch = claimedAhead, epoch
		if it.out != nil {
			it.out.epoch = epoch
			e.aheadHeld -= it.out.size()
			e.taken(it.out)
			e.ready = append(e.ready, it.out)
			delete(e.ahead, en.URL)
		}
	}
	defer e.kick()
	for u := range carried {
		if mine[u] {
			continue
		}
		it := e.ahead[u]
		it.state = lost
		if it.out != nil {
			e.aheadHeld -= it.out.size()
			e.drop(it.out)
			delete(e.ahead, u)
		}
	}
	return mine
}

// visited reports whether the line of a claimed entry may have a fetch
// history: a copy, a visit recorded, or a state only a fetch gives. A page
// fetched ahead was fetched without one, as a page never seen (no
// conditional request, no retry time, counts from zero), so its answer is
// taken only for a line that has none; a visited line is fetched again,
// like any claimed line, with its history, and if it is claimed while its
// fetch ahead still runs, both requests run at once (each job keeps its
// own copy: finish). Fetching ahead leaves the lines it knows visited
// alone (known.go), so this is for lines visited after it read the list,
// by another spider.
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

// claimedLine notes a line claimed the usual way, so that it is not
// fetched ahead too.
func (e *Engine) claimedLine(en list.Entry) {
	e.mu.Lock()
	if e.aheadOn {
		e.graph.claimed(en.URL, en.Level, e.moved)
	}
	e.mu.Unlock()
}

// levelNow returns the level of the line en as this spider knows it now:
// lower than en's if, while en was fetched ahead, a link to it turned up
// on a shallower page. The links of en's page take their levels from it.
func (e *Engine) levelNow(en list.Entry) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.graph == nil {
		return en.Level
	}
	if level, seen := e.graph.level(en.URL); seen && level < en.Level {
		return level
	}
	return en.Level
}

// adapt turns fetching ahead on while at least half of the distinct links
// a pass carried that no pass of the run carried before were new to the
// list, and off otherwise. Links carried before do not count: while
// fetching ahead is off, a pass carries every link of every page, and the
// links on every page (home, an index, a style sheet), known to the list,
// would keep it off even where all the others are new, as at the frontier
// of a resumed first mirror. A pass that carried nothing new to the run
// changes nothing. Turning it on takes minFresh such links, so that a new
// page or two in a refresh does not, unless the list held nothing before
// the pass (a first mirror's first pass carries its start URLs alone);
// once on, it stays on for fewer.
//
// When it turns fetching ahead on, it first reads the list's visited lines
// into e.known, which fetching ahead then leaves alone. Only adapt turns
// it on, so it stays off while the list is read.
func (e *Engine) adapt(ctx context.Context, c *list.Cycle) {
	fresh := 0
	for _, a := range c.Add {
		if !e.recent.seen(a.URL) {
			fresh++
		}
	}
	if fresh == 0 {
		return
	}
	on := 2*c.Stats.Added >= fresh
	e.mu.Lock()
	if !on || e.aheadOn || e.cfg.Ahead <= 0 {
		e.setAhead(on)
		e.mu.Unlock()
		return
	}
	e.mu.Unlock()
	if fresh < minFresh && c.Stats.Lines != c.Stats.Added {
		return // too few to turn it on for; it stays off
	}
	// e.known is read only while fetching ahead is on (addLinks).
	if err := e.known.fill(ctx, e.list); err != nil && ctx.Err() == nil {
		e.log.Warn("list not read for its visited lines; fetching ahead may fetch some of them in vain", "err", err)
	}
	e.mu.Lock()
	e.setAhead(true)
	e.mu.Unlock()
}

// minFresh is how many links new to the run a pass must carry for adapt to
// turn fetching ahead on (but in a list empty before the pass).
const minFresh = 8

// aheadAlive returns how many lines fetched ahead are not handed on yet.
func (e *Engine) aheadAlive() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.ahead)
}
