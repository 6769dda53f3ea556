package crawl

import (
	"log/slog"
	"sync"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// Links held back. The per-host budget of links taken per pass
// (Config.MaxNewPerHost, scope.go) refuses a page's links past it, against
// URL spaces without end. Refused is not lost: the page's history
// (meta.Record.Held) keeps them, and every later visit of the page offers
// them again until the budget takes them. A visit that finds the page
// changed takes its links afresh (those the new copy no longer has are
// forgotten); one that finds it unchanged, a 304 or the same body, offers
// those held; one that fails keeps them for the next.
//
// The spider that held links back offers them again sooner as well: it
// keeps them in memory too (heldLinks, up to maxHeldInRun) and offers them
// again as each pass's budget starts, oldest first; so a first mirror is
// not left without them until its pages' next visit.
// The page's history still lists them until that visit, which finds them
// in the list.
//
// Cost: nothing for a page that holds none back, and a 304 parses nothing
// either way: the pass that claimed the line read its record. In LIST.meta
// a held link takes its path and about five bytes (its kind, the JSON
// around it; the origin it shares with the page is left out) beside the
// record's 250 or so, up to Config.MaxLinks links a page, and only until
// it is taken.

// takeLinks queues the links of the page of o's line that are followed
// (o.adds), at most Config.MaxLinks of them, and keeps those the budget
// held back in the line's history, in place of those it held before.
// judged is what is known of each link (judgedLinks), or nil.
func (e *Engine) takeLinks(o *outcome, links []extract.Link, judged []judgedLink) {
	en := o.job.en
	fromIn := e.scope.has(en.URL)
	var held []meta.Link
	for i, l := range links {
		if i >= e.cfg.MaxLinks {
			e.obs.warns.note(slog.LevelWarn, "too many links on a page, rest ignored", en.URL, "kept", e.cfg.MaxLinks)
			break
		}
		var j *judgedLink
		if judged != nil {
			j = &judged[i]
		}
		switch u, ok, hold := e.follows(en, fromIn, l, j); {
		case ok:
			o.adds = append(o.adds, list.Add{URL: u, Level: linkLevel(en.Level, l.Kind, en.URL, u)})
		case hold:
			held = append(held, meta.Link{URL: u, Kind: uint8(l.Kind), Nofollow: l.Nofollow})
		}
	}
	if o.rec != nil {
		o.rec.Held = held
	}
	e.follow.held.push(en, held)
}

// retakeHeld offers the links that o's line held back again, on a visit
// that found the page unchanged.
func (e *Engine) retakeHeld(o *outcome) {
	if o.rec == nil || len(o.rec.Held) == 0 {
		return
	}
	links := make([]extract.Link, len(o.rec.Held))
	for i, h := range o.rec.Held {
		links[i] = extract.Link{URL: h.URL, Kind: extract.Kind(h.Kind), Nofollow: h.Nofollow}
	}
	before := len(o.adds)
	e.takeLinks(o, links, nil)
	e.log.Debug("links held back offered again", "url", o.job.en.URL, "taken", len(o.adds)-before, "still_held", len(o.rec.Held))
}

// maxHeldInRun bounds the links a run keeps in memory to offer again
// (two URLs and a few words each); past it, links wait for their page's
// next visit only. Tests change it.
var maxHeldInRun = 1 << 15

// heldLinks is the run's memory of the links the budget held back: the
// workers add to it, the loop offers them again at each pass
// (run.offerHeld). Its lock is held only inside its methods.
type heldLinks struct {
	mu    sync.Mutex
	items []heldLink
}

// heldLink is a link held back, with the page it is on and the page's
// level then.
type heldLink struct {
	from  string
	level int
	link  meta.Link
}

// push adds the links of the page of from, as many as fit.
func (h *heldLinks) push(from list.Entry, links []meta.Link) {
	if len(links) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range links[:min(len(links), max(maxHeldInRun-len(h.items), 0))] {
		h.items = append(h.items, heldLink{from.URL, from.Level, l})
	}
}

// take returns every link kept and forgets them.
func (h *heldLinks) take() []heldLink {
	h.mu.Lock()
	defer h.mu.Unlock()
	items := h.items
	h.items = nil
	return items
}

// putBack keeps links again, before those added since take.
func (h *heldLinks) putBack(items []heldLink) {
	if len(items) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items = append(items, h.items...)
}

// offerHeld offers the links the budget held back in this run again,
// with the budget that starts now (follower.newPass): those
// taken are registered as links found on their page (jobs.offer), for
// the next pass, in epoch; those the budget holds back again are kept,
// in their order; those the rules now refuse are forgotten. A host whose
// budget is spent is not asked again in this round.
func (r *run) offerHeld(epoch int64) {
	e := r.e
	items := e.follow.held.take()
	var left []heldLink
	var adds []list.Add
	spent := map[string]bool{}
	for i, it := range items {
		from := list.Entry{URL: it.from, Level: it.level}
		if h := hostOf(it.link.URL); spent[h] {
			left = append(left, it)
		} else {
			l := extract.Link{URL: it.link.URL, Kind: extract.Kind(it.link.Kind), Nofollow: it.link.Nofollow}
			switch u, ok, hold := e.follows(from, e.scope.has(from.URL), l, nil); {
			case ok:
				adds = append(adds, list.Add{URL: u, Level: linkLevel(it.level, l.Kind, it.from, u)})
			case hold:
				spent[h] = true
				left = append(left, it)
			}
		}
		if len(adds) > 0 && (i == len(items)-1 || items[i+1].from != it.from) {
			r.jobs.offer(from, adds, e.cfg.Profile.MaxLevel, epoch)
			adds = nil
		}
	}
	e.follow.held.putBack(left)
}
