package crawl

import (
	"bytes"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
)

// publishEvery is how often, at most, a spider merges its changes into the
// mirror's index (mirrorindex) between passes.
const publishEvery = 2 * time.Second

// changeLog holds the changes of the mirror not yet published to its index.
// Workers and the group commit note changes; the publisher goroutine (owned
// by Run, started by publisher, ended by its stop) publishes them.
type changeLog struct {
	mu      sync.Mutex
	pending []mirrorindex.Event
	last    time.Time // last publication
	pub     mirrorindex.Publisher
	kick    chan struct{}
}

// change returns the event that writing body at file for the line en
// makes: "new" for a line without a copy, "restored" for an archived line,
// "changed" if the bytes differ from the copy on disk, none (Kind "")
// otherwise. It reads the old copy, so it must run before the write.
func (e *Engine) change(en list.Entry, file string, body []byte, now time.Time) mirrorindex.Event {
	ev := mirrorindex.Event{Time: now, URL: en.URL, Host: hostOf(en.URL), File: file, Page: isHTMLFile(file), Bytes: len(body)}
	switch {
	case en.File == "":
		ev.Kind = mirrorindex.New
	case en.State == list.Archived:
		ev.Kind = mirrorindex.Restored
	default:
		if old, err := e.mirror.ReadFile(en.File); err != nil || en.File != file || !bytes.Equal(old, body) {
			ev.Kind = mirrorindex.Changed
		}
	}
	return ev
}

// note queues an event for the index; one without a Kind is no change.
func (c *changeLog) note(ev mirrorindex.Event) {
	if ev.Kind == "" {
		return
	}
	c.mu.Lock()
	c.pending = append(c.pending, ev)
	c.mu.Unlock()
}

// publisher runs publish beside the loop, when kickPublish asks, until
// stop is called: the loop's passes do not wait for the index (at 10,000
// events, tens of milliseconds). Run publishes once more itself, finally,
// after stop.
func (e *Engine) publisher() (stop func()) {
	e.index.kick = make(chan struct{}, 1)
	return beside(e.index.kick, func() { e.publish(false) })
}

// kickPublish asks the publisher for a publish, which does nothing if the
// last one is recent (publish).
func (e *Engine) kickPublish() {
	select {
	case e.index.kick <- struct{}{}:
	default:
	}
}

// publish merges the queued events into the mirror's index and regenerates
// its root pages, at most every publishEvery, and without news only every
// mirrorindex.Refresh, unless final (the spider is stopping). A failure is
// logged and the events are kept for the next try. Calls do not overlap:
// the publisher makes them, and Run once it has stopped.
func (e *Engine) publish(final bool) {
	now := e.cfg.Now()
	e.index.mu.Lock()
	idle := len(e.index.pending) == 0 && !e.index.last.IsZero()
	if !final && (now.Sub(e.index.last) < publishEvery || idle && now.Sub(e.index.last) < mirrorindex.Refresh) {
		e.index.mu.Unlock()
		return
	}
	evs := e.index.pending
	e.index.pending, e.index.last = nil, now
	e.index.mu.Unlock()
	if err := e.index.pub.Publish(e.mirror, evs, now); err != nil {
		e.log.Warn("mirror index not updated", "err", err)
		e.index.mu.Lock()
		e.index.pending = append(evs, e.index.pending...)
		e.index.mu.Unlock()
	}
}
