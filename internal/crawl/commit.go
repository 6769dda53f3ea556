package crawl

import (
	"log/slog"
	"time"

	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// An outcome is a finished fetch of a line: its result, the links found,
// the line's history after the fetch, the copy to write into the mirror
// (none if the fetch wrote nothing), and what it adds to the run's totals
// once the loop takes it. Each outcome belongs to one job, and each
// job's fetch keeps its own copy: a line fetched ahead whose answer a pass
// does not take (another spider visited it meanwhile: decide) is fetched
// again, possibly while the first fetch still runs.
type outcome struct {
	job  job
	res  list.Result
	adds []list.Add // links found, at the level of the page as fetched
	// guesses hint the pages that linked a page gone (guessLinkers): they
	// may have changed too. The history does not take them for
	// announcements.
	guesses []list.Add
	// listed are the pages a hub whose links changed links: the next
	// pass guesses that the listings among them changed too (announce).
	listed []candidate
	// linked says adds held links when the worker handed them over
	// (jobs.found, which empties adds, guesses and listed): a first
	// visit's links make a pass due sooner (passDue). news says an add
	// carried a hint (an announcement), or there were guesses or pages
	// listed, for the other spiders to hear of soon: they make it due
	// sooner too.
	linked, news bool
	rec          *meta.Record // the line's history after the fetch; nil = none to store
	copy         *pageCopy
	epoch        int64   // of the claim the result is recorded under
	count        Summary // what the fetch adds to the totals once taken
	gone         bool    // the page was found gone just now: news once taken
	take         bool    // the loop takes it on receipt (jobs.found)
}

// size returns the bytes of the copy o holds in memory.
func (o *outcome) size() int64 {
	if o.copy == nil {
		return 0
	}
	return int64(len(o.copy.body))
}

// pageCopy is a page's copy waiting for the group commit.
type pageCopy struct {
	file  string
	body  []byte
	ev    mirrorindex.Event // noted for the mirror's index once committed
	leads []mirror.File     // the names links guessed, leading to file (page.go)
}

// commit makes the copies of the outcomes durable in one group
// (mirror.WriteAll) and returns the correction to the totals. A copy whose
// claim may have been taken back meanwhile (lease.voided) is discarded and
// its line handed back; a copy that fails to commit makes an error result.
// It runs on a goroutine of its own (loop.go); the outcomes are its alone
// until it returns.
func (e *Engine) commit(outs []*outcome) (fix Summary) {
	now := e.cfg.Now()
	start := time.Now()
	var owners []*outcome
	var files, leads []mirror.File
	for _, o := range outs {
		if o.copy == nil {
			continue
		}
		if e.lease.voided(o.epoch, now) {
			e.warnVoided(o.res.URL)
			o.handBack(&fix)
			continue
		}
		owners = append(owners, o)
		files = append(files, mirror.File{Rel: o.copy.file, Data: o.copy.body})
		leads = append(leads, o.copy.leads...)
	}
	// The leads go in the same group, after the copies: a copy whose write
	// fails is an error, a lead's only a warning (the copy is in place).
	errs := e.mirror.WriteAll(append(files, leads...))
	for i, err := range errs[len(files):] {
		if err != nil {
			e.obs.warns.note(slog.LevelWarn, "mirror write failed for a file leading to a copy", leads[i].Rel, "err", err)
		}
	}
	var full error // the mirror cannot take writes (storage.go)
	for i, err := range errs[:len(files)] {
		if err == nil {
			continue
		}
		o := owners[i]
		if unwritable(err) {
			// Not the page's fault: its line goes back as it was, to be
			// fetched again once the mirror takes writes.
			full = err
			o.handBack(&fix)
			continue
		}
		fix.Fetched--
		o.res = list.Result{URL: o.res.URL, State: failedState(o.job.en)}
		if o.rec != nil {
			*o.rec = history.Failed(*o.rec, err, now)
			e.polite.retry.hold(o.res.URL, o.rec.RetryAt)
		}
		o.copy = nil
		fix.Errors++
		e.obs.warns.note(slog.LevelError, "mirror write failed", o.res.URL, "err", err)
	}
	switch {
	case full != nil:
		if wait := e.storage.failed(full, time.Now()); wait > 0 {
			e.log.Error("the mirror cannot be written: no claims and no fetches for a while, then a new attempt; the lines go back unchanged",
				"wait", wait, "err", full)
		}
	case len(owners) > 0:
		e.storage.wrote()
	}
	if len(owners) > 0 {
		e.log.Debug("group commit", "files", len(owners), "took", time.Since(start))
	}
	for _, o := range outs {
		if o.copy != nil {
			e.index.note(o.copy.ev) // on disk now: news for the mirror's index
		}
		e.noteCopy(o)
	}
	return fix
}

// noteCopy remembers where the copy of the outcome's URL is now, for the
// links to it that pages are rewritten with from now on (links.go): the
// file it was written to or kept at, else the line's file if it is a name
// of the URL's under the layout (not one of an earlier layout's).
func (e *Engine) noteCopy(o *outcome) {
	en := o.job.en
	switch {
	case o.res.State == list.Downloaded && o.res.File != "":
		e.links.noteCopy(o.res.URL, o.res.File)
	case en.File != "" && e.ownName(en):
		e.links.noteCopy(en.URL, en.File)
	}
}

// handBack empties the outcome of a fetch whose copy was not written: its
// line goes back to the pool as it was (a result with no state), and fix
// takes back what the fetch added to the totals.
func (o *outcome) handBack(fix *Summary) {
	o.res, o.rec, o.copy = list.Result{URL: o.res.URL}, nil, nil
	fix.Fetched--
	fix.Bytes -= o.count.Bytes
}

// warnVoided says that the result of the line at url is dropped: the
// spider's claims may have been taken back while it was stopped (a
// paused process, a suspended machine: lease.voided).
func (e *Engine) warnVoided(url string) {
	e.obs.warns.note(slog.LevelWarn, "result dropped: the claim may have been taken back while this spider was stopped", url)
}
