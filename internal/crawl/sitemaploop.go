package crawl

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spider-mirror/spider/list"
)

// sitemapQueue is the loop's side of reading sitemaps (sitemaps.go): which
// hosts wait for a read, and the read under way. The loop owns it alone.
// A read runs on a goroutine of its own, one at a time, started by the
// loop (startSitemaps), which ends by sending its answer on mapDone; drain
// cancels the read under way and waits for that answer.
type sitemapQueue struct {
	next    map[string]time.Time // origin -> when this run may read its sitemaps again
	queue   []string             // origins waiting for a read, in the order their lines were claimed
	reading bool
	cancel  context.CancelFunc // ends the read under way
}

// busy reports whether a read is under way or waiting.
func (q *sitemapQueue) busy() bool { return q.reading || len(q.queue) > 0 }

// wantSitemaps queues the hosts of the start URLs and of the lines a pass
// claimed whose sitemaps this run has not read lately: a host is read at
// the run's first pass, or when its first line is claimed, so that what
// its sitemaps list comes early in a first mirror, and again once
// sitemapEvery has passed, due lines or not.
func (r *run) wantSitemaps(claimed []list.Entry, now time.Time) {
	e := r.e
	if !e.cfg.Sitemaps || r.stopping {
		return
	}
	q := &r.maps
	if q.next == nil {
		q.next = map[string]time.Time{}
	}
	want := func(u string) {
		if !e.scope.has(u) {
			return
		}
		scheme, _, _ := strings.Cut(u, "://")
		origin := scheme + "://" + hostOf(u)
		if now.Before(q.next[origin]) || slices.Contains(q.queue, origin) {
			return
		}
		q.next[origin] = now.Add(e.sitemapEvery())
		q.queue = append(q.queue, origin)
	}
	for _, u := range e.cfg.Starts {
		want(u)
	}
	for _, en := range claimed {
		want(en.URL)
	}
}

// startSitemaps starts the read of the next host waiting, if no read is
// under way.
func (r *run) startSitemaps() {
	q := &r.maps
	if q.reading || len(q.queue) == 0 || r.stopping {
		return
	}
	origin := q.queue[0]
	q.queue = q.queue[1:]
	ctx, cancel := context.WithCancel(r.ctx)
	q.reading, q.cancel = true, cancel
	e := r.e
	// The loop's: it ends by sending its answer on mapDone, which the
	// loop, or drain once the loop is over, receives; drain cancels ctx.
	go func() {
		defer cancel()
		r.mapDone <- e.readSitemaps(ctx, origin)
	}()
}

// sitemapsRead takes a read's answer: its adds wait for the next pass,
// which comes at once if the spider was idle, and decides whether the run
// is over.
func (r *run) sitemapsRead(rd sitemapRead) {
	r.maps.reading, r.maps.cancel = false, nil
	r.jobs.queueAdds(rd.adds)
	r.idleUntil = time.Time{}
}

// stopSitemaps ends the read under way, if any, and takes its answer.
func (r *run) stopSitemaps() {
	r.maps.queue = nil
	if r.maps.reading {
		r.maps.cancel()
		r.sitemapsRead(<-r.mapDone)
	}
}

// SitemapHost is what a spider's reads of one host's sitemaps gave since
// it started.
type SitemapHost struct {
	Host   string    `json:"host"`
	Reads  int       `json:"reads"`  // reads of the host's sitemaps
	Files  int       `json:"files"`  // files read with a 2xx answer
	URLs   int       `json:"urls"`   // URLs the url sets listed
	Taken  int       `json:"taken"`  // of those, added to the list (in scope, not cut)
	Hinted int       `json:"hinted"` // of those, with a lastmod
	Last   time.Time `json:"last"`   // when the last read ended
}

// sitemapObs counts the reads by host, for the status.
type sitemapObs struct {
	mu    sync.Mutex
	hosts map[string]*SitemapHost
}

func (o *observations) sitemapRead(host string, rd sitemapRead, at time.Time) {
	s := &o.maps
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = map[string]*SitemapHost{}
	}
	h := s.hosts[host]
	if h == nil {
		if len(s.hosts) >= maxHosts {
			return
		}
		h = &SitemapHost{Host: host}
		s.hosts[host] = h
	}
	h.Reads++
	h.Files += rd.files
	h.URLs += rd.listed
	h.Taken += len(rd.adds)
	h.Hinted += rd.hinted
	h.Last = at.UTC()
}

// sitemaps returns the counts by host, by host name.
func (o *observations) sitemaps() []SitemapHost {
	s := &o.maps
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedCopies(s.hosts, func(a, b SitemapHost) int { return strings.Compare(a.Host, b.Host) })
}
