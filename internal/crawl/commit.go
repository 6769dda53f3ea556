package crawl

import (
	"time"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// An outcome is a finished fetch of a claimed line: its result, and the
// copy to write into the mirror (none if the fetch wrote nothing). The
// group commit before the next pass writes the copies and makes them
// durable; only then do the results go into the pass, so the list never
// records a copy that is not on disk.
type outcome struct {
	res   list.Result
	copy  *pageCopy
	epoch int64
	rec   *meta.Record // the line's history after the fetch; nil = none to store
}

// size returns the bytes of the copy o holds in memory.
func (o *outcome) size() int64 {
	if o.copy == nil {
		return 0
	}
	return int64(len(o.copy.body))
}

// pageCopy is a page's copy waiting for the group commit. The loop writes
// the copies of a group one after the other: workers creating files in one
// directory at once contend for its lock in the kernel, which spins.
type pageCopy struct {
	file string
	body []byte
	ev   mirrorindex.Event // noted for the mirror's index once committed
}

// finish takes the result of a job and the links it found: links are
// queued for the next pass (and some fetched ahead, see ahead.go); the
// result waits for the group commit, or, for a line fetched ahead whose
// claim is not decided yet, for the pass that decides it.
//
// The copy, if any, is the job's own, handed over by its worker: never a
// map keyed by URL, since a line claimed while its fetch ahead still runs
// (decide) is fetched twice at once.
func (e *Engine) finish(j job, res list.Result, adds []list.Add, rec *meta.Record, cp *pageCopy) {
	e.mu.Lock()
	o := &outcome{res: res, copy: cp, epoch: j.epoch, rec: rec}
	if res.State != list.Downloaded {
		o.copy = nil // cannot happen: only a stored page has a copy
	}
	e.addLinks(j.en, adds)
	if j.ahead {
		e.aheadDone(res.URL, o)
	} else {
		e.ready = append(e.ready, o)
	}
	e.mu.Unlock()
	e.queued.Add(-1)
	e.kick()
	e.signal()
}

// kick asks the committer for a group commit.
func (e *Engine) kick() {
	select {
	case e.commits <- struct{}{}:
	default:
	}
}

// signal wakes the loop to check whether a pass is due.
func (e *Engine) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// committer runs group commits beside the loop until stop is called: each
// commits what finished while the last one ran, so passes never wait for
// the disk, and the disk never waits for a pass. The loop commits what is
// left itself, after stop, before its last pass.
func (e *Engine) committer() (stop func()) {
	return beside(e.commits, func() {
		e.commit()
		e.signal()
	})
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

// commit makes the copies of every ready outcome durable in one group
// (mirror.WriteAll) and moves their results to the next pass. A copy whose
// claim may have been taken back meanwhile (see voided) is discarded and
// its line handed back; a copy that fails to commit makes an error result.
func (e *Engine) commit() {
	e.mu.Lock()
	ready := e.ready
	e.ready = nil
	e.mu.Unlock()
	if len(ready) == 0 {
		return
	}
	now := e.cfg.Now()
	start := time.Now()
	fail := func(o *outcome, err error) {
		o.res = list.Result{URL: o.res.URL, State: list.Error}
		if o.rec != nil {
			*o.rec = failed(*o.rec, err, now)
			e.retry.hold(o.res.URL, o.rec.RetryAt)
		}
		e.count(func(s *Summary) { s.Errors++; s.Fetched-- })
		e.log.Error("mirror write failed", "url", o.res.URL, "err", err)
	}
	var owners []*outcome
	var files []mirror.File
	for _, o := range ready {
		if o.copy == nil {
			continue
		}
		if e.voided(o.epoch, now) {
			e.log.Warn("result dropped: the claim may have been taken back while this spider was stopped", "url", o.res.URL)
			o.res, o.rec, o.copy = list.Result{URL: o.res.URL}, nil, nil
			e.count(func(s *Summary) { s.Fetched-- })
			continue
		}
		owners = append(owners, o)
		files = append(files, mirror.File{Rel: o.copy.file, Data: o.copy.body})
	}
	for i, err := range e.mirror.WriteAll(files) {
		if err != nil {
			fail(owners[i], err)
			owners[i].copy = nil
		}
	}
	if len(owners) > 0 {
		e.log.Debug("group commit", "files", len(owners), "took", time.Since(start))
	}
	for _, o := range ready {
		if o.copy != nil {
			e.note(o.copy.ev) // on disk now: news for the mirror's index
		}
	}
	e.mu.Lock()
	for _, o := range ready {
		e.results = append(e.results, o.res)
		if o.rec != nil {
			e.history = append(e.history, *o.rec)
		}
	}
	e.mu.Unlock()
}
