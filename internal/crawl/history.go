package crawl

import (
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// The history of a URL decides what the list line cannot: which
// validators a conditional GET sends, whether a 404 is confirmed, and when
// a failing URL may be tried again (internal/history). This file is the
// engine's side: what the mirror holds, and storing the records.

// conditional returns the validators to send for a line: only when the
// mirror holds the line's copy as fetched, so a 304 always has a copy to
// keep (not one that may carry a banner: a page that comes back is
// fetched whole and written afresh without it), and at a name of the
// layout's (not an earlier layout's, page.go ownName).
func (e *Engine) conditional(en list.Entry, rec meta.Record) http.Header {
	if !e.keepable(en, rec) {
		return nil
	}
	h := history.Conditional(rec)
	if h == nil {
		return nil
	}
	if _, err := e.mirror.Stat(en.File); err != nil {
		return nil // the copy is missing: fetch it whole
	}
	return h
}

// unchanged reports whether a body with checksum sum, to be saved at file,
// is the copy the line already has: same checksum as last time, same file,
// the file in place, and not a copy that may carry a banner.
func (e *Engine) unchanged(en list.Entry, rec meta.Record, file, sum string) bool {
	if sum != rec.Checksum || file != en.File || mayBeBannered(en, rec) {
		return false
	}
	_, err := e.mirror.Stat(file)
	return err == nil
}

// keepable reports whether the copy of the line en, whose history is rec,
// may be kept as current when the site says it has not changed (a 304, a
// redirect to the same page as before): the line has a copy, one that
// carries no banner (mayBeBannered) and is at a name of the layout's (not
// an earlier layout's, page.go ownName: such a copy is fetched whole, to
// be written under its name now).
func (e *Engine) keepable(en list.Entry, rec meta.Record) bool {
	return en.File != "" && !mayBeBannered(en, rec) && e.ownName(en)
}

// forwardsTo returns the page the line en's copy forwards to, if the
// copy may be kept as long as the URL redirects there (keepable), else "":
// also for a copy that forwards online, where the spider does not go
// (forwardAway), so that the redirect is judged again at each visit and
// followed once it may be.
func (e *Engine) forwardsTo(en list.Entry, rec meta.Record) string {
	if rec.Forwards && e.keepable(en, rec) && e.redirectable(rec.RedirectTo) {
		return rec.RedirectTo
	}
	return ""
}

// mayBeBannered reports whether the copy of the line en, whose history is
// rec, may carry an archive banner: its line is archived, or the page
// answered 404 since its last success, so a banner written for it may have
// outlived a result lost in a crash. Such a copy is never kept as current
// on a 304 or an identical body: it is written afresh, without a banner.
func mayBeBannered(en list.Entry, rec meta.Record) bool {
	return en.State == list.Archived || rec.NotFound > 0
}

// records returns the history of the claimed lines the workers are to
// fetch: all but those whose answer fetched ahead the pass takes (their
// fetch is over). Without it the lines are fetched unconditionally, which
// is slower but correct. The start pages' history comes along: their
// links are their sites' navigation (revisit.go), kept current whichever
// spider visits them. So does the history of the lines claimed earlier
// that the list says are hinted (hinted: list.Cycle.HintedClaims), which
// holds the announcement that hinted them (jobs.addClaimed).
func (e *Engine) records(h *historian, claimed []list.Entry, hinted []string, carried map[string]bool) map[string]meta.Record {
	keys := slices.Clone(hinted)
	for _, en := range claimed {
		if !carried[en.URL] || visited(en) {
			keys = append(keys, en.URL)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	recs, err := h.get(append(keys, e.cfg.Starts...))
	if err != nil {
		e.log.Warn("fetch history not read; fetching without it", "err", err)
	}
	for _, s := range e.cfg.Starts {
		e.navs.set(s, recs[s].Links)
	}
	return recs
}

// History is the store of every URL's fetch history that the spiders of
// a list share: internal/meta's file (LIST.meta) or internal/pglist's
// table. Get returns the records of the URLs that have one; Put replaces
// each record's URL's, the last of a URL in recs winning; Announce
// applies news as meta.Store.Announce does.
type History interface {
	Get(urls []string) (map[string]meta.Record, error)
	Put(recs []meta.Record) error
	Announce(news map[string]meta.News, window time.Duration) error
}

// historian stores history records beside the loop, in one transaction
// per batch of whatever accumulated since the last one, at most every
// historyEvery unless historyBatch records wait: a transaction rewrites
// every page of LIST.meta its records touch, and records of one batch
// share pages. The records may reach the disk after the pass that records
// their results: a crash in between loses records, which costs nothing but
// an unconditional GET, a restarted 404 count or a forgotten retry time
// (internal/meta). A copy is never at stake: the list alone says which
// copies the mirror holds.
type historian struct {
	store  History
	log    *slog.Logger
	window time.Duration // news older than this counts from when it was heard

	mu      sync.Mutex
	queued  batch     // for the next flush
	storing batch     // what a flush is storing, until it is stored
	last    time.Time // when the last batch was taken
	kick    chan struct{}
}

const (
	historyEvery = time.Second
	historyIdle  = historyEvery / 8
	historyBatch = 4096
)

func newHistorian(store History, log *slog.Logger, window time.Duration) *historian {
	return &historian{store: store, log: log, window: window, kick: make(chan struct{}, 1)}
}

// add queues records, and wakes the historian if a batch is due. Each
// pass calls it, with records or without. idle says the workers have
// nothing left to fetch: the end of a crawl, or a pause in it. A batch is
// then due sooner (historyIdle), so the records of a run's last second
// are stored while its last fetches are committed, not after its last
// pass.
func (h *historian) add(recs []meta.Record, idle bool) {
	h.mu.Lock()
	h.queued.recs = append(h.queued.recs, recs...)
	q := h.queued
	since := time.Since(h.last)
	due := len(q.recs)+len(q.news) > 0 && (len(q.recs) >= historyBatch || since >= historyEvery || idle && since >= historyIdle)
	h.mu.Unlock()
	if !due {
		return
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// get returns the records of urls as the store will hold them once the
// historian has stored what it queued: the store's, with the batch a
// flush is storing and the batch queued applied over them, as the flushes
// apply them. A line claimed again before its last record reached the
// store (a window shorter than historyEvery, or a list's timestamps in
// whole seconds) is then fetched with the validators of its last visit,
// and its new record goes on from that one instead of replacing it. The
// batches are read before the store, so that what a flush stores in
// between is read from one or the other.
func (h *historian) get(urls []string) (map[string]meta.Record, error) {
	pending := h.pending(urls)
	recs, err := h.store.Get(urls)
	for _, b := range pending {
		recs = b.over(recs, h.window)
	}
	return recs, err
}

// pending returns what the batch being stored and the batch queued hold
// of urls, in the order the flushes store them.
func (h *historian) pending(urls []string) [2]batch {
	want := make(map[string]bool, len(urls))
	for _, u := range urls {
		want[u] = true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return [2]batch{h.storing.of(want), h.queued.of(want)}
}

// batch is what one flush stores: records, then announcements.
type batch struct {
	recs []meta.Record
	news map[string]meta.News // announcements (announce), earliest per URL
}

// of returns the part of b about the URLs in want.
func (b batch) of(want map[string]bool) batch {
	var out batch
	for _, r := range b.recs {
		if want[r.URL] {
			out.recs = append(out.recs, r)
		}
	}
	for u, n := range b.news {
		if want[u] {
			if out.news == nil {
				out.news = map[string]meta.News{}
			}
			out.news[u] = n
		}
	}
	return out
}

// over applies b to recs as a flush applies it to the store (History.Put,
// then History.Announce), and returns recs.
func (b batch) over(recs map[string]meta.Record, window time.Duration) map[string]meta.Record {
	put := func(r meta.Record) {
		if recs == nil {
			recs = map[string]meta.Record{}
		}
		recs[r.URL] = r
	}
	for _, r := range b.recs { // the last of a URL wins
		put(r)
	}
	for u, n := range b.news {
		r := recs[u]
		r.URL = u
		if r.Announce(n, window) {
			put(r)
		}
	}
	return recs
}

// announce queues the announcements among adds (those with a Hint: a
// hub or a sitemap said the page changed then), heard at heard, stored
// with the next batch so that the visit that follows measures its lag
// (meta.Announce).
func (h *historian) announce(adds []list.Add, heard time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range adds {
		if a.Hint.IsZero() {
			continue
		}
		q := &h.queued
		if q.news == nil {
			q.news = map[string]meta.News{}
		}
		if n, ok := q.news[a.URL]; !ok || a.Hint.Before(n.Changed) {
			q.news[a.URL] = meta.News{Changed: a.Hint, Heard: heard}
		}
	}
}

// flush stores what is queued: the records, then the announcements, so
// that a record written by a visit does not overwrite news that came
// after it.
func (h *historian) flush() {
	h.mu.Lock()
	b := h.queued
	h.queued, h.storing, h.last = batch{}, b, time.Now()
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.storing = batch{}
		h.mu.Unlock()
	}()
	if len(b.recs) > 0 {
		if err := h.store.Put(b.recs); err != nil {
			// History is a cache (see internal/meta): the spider goes on
			// without it rather than stall.
			h.log.Warn("fetch history not stored; those URLs are fetched unconditionally next time", "records", len(b.recs), "err", err)
		}
	}
	if err := h.store.Announce(b.news, h.window); err != nil {
		h.log.Warn("announcements not stored; their pages' lag goes unmeasured", "pages", len(b.news), "err", err)
	}
}

// start runs the historian on a goroutine of its own, owned by Run, until
// stop is called; stop stores what is left before it returns, and may be
// called more than once.
func (h *historian) start() (stop func()) {
	stopFlushes := beside(h.kick, h.flush)
	return sync.OnceFunc(func() { stopFlushes(); h.flush() })
}

// beside runs do on a goroutine of its own each time kick receives, until
// stop is called; stop returns once do has returned.
func beside(kick <-chan struct{}, do func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-kick:
				do()
			}
		}
	}()
	return func() { close(quit); <-done }
}
