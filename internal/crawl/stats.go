package crawl

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
)

// Archival is a page this spider found gone, and when.
type Archival struct {
	URL string    `json:"url"`
	At  time.Time `json:"at"`
}

// HostTime is the mean time of this spider's fetches from one host.
type HostTime struct {
	Host    string  `json:"host"`
	Fetches int     `json:"fetches"`
	MeanSec float64 `json:"mean_s"`
}

// ErrorCount is how often one kind of failure happened.
type ErrorCount struct {
	Error string `json:"error"`
	Count int    `json:"count"`
}

// observations are what a spider remembers for its status: archivals of
// the last day, fetch times by host, failures by kind. Bounded.
type observations struct {
	warns    *warnings // grouped by cause, flushed after each pass (warnings.go)
	progress *progress // totals for Progress, published by the loop

	maps sitemapObs // sitemaps read, by host (sitemaploop.go)

	mu        sync.Mutex
	archivals []Archival
	hosts     map[string]*HostTime
	errs      map[string]int
}

const (
	maxArchivals = 200
	maxHosts     = 1000
	maxErrKinds  = 100
)

func (o *observations) archived(url string, at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.archivals = append(o.archivals, Archival{url, at})
	if len(o.archivals) > maxArchivals {
		o.archivals = o.archivals[len(o.archivals)-maxArchivals:]
	}
}

func (o *observations) fetched(host string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.hosts == nil {
		o.hosts = map[string]*HostTime{}
	}
	h := o.hosts[host]
	if h == nil {
		if len(o.hosts) >= maxHosts {
			return
		}
		h = &HostTime{Host: host}
		o.hosts[host] = h
	}
	h.MeanSec = (h.MeanSec*float64(h.Fetches) + d.Seconds()) / float64(h.Fetches+1)
	h.Fetches++
}

// answer returns host's mean answer time over the run (0: no answer yet).
func (o *observations) answer(host string) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	if h := o.hosts[host]; h != nil {
		return time.Duration(h.MeanSec * float64(time.Second))
	}
	return 0
}

func (o *observations) failed(err error) {
	kind := errorKind(err)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.errs == nil {
		o.errs = map[string]int{}
	}
	if _, ok := o.errs[kind]; ok || len(o.errs) < maxErrKinds {
		o.errs[kind]++
	}
}

// errorKind names a failure without its URL, so that like failures count
// together: "503 Service Unavailable", "timeout", "redirects", ...
func errorKind(err error) string {
	var he *fetch.HTTPError
	switch {
	case errors.As(err, &he):
		return he.Status
	case errors.Is(err, fetch.ErrTooLarge):
		return "body too large"
	case errors.Is(err, fetch.ErrRedirectRefused):
		return "redirect not followed (out of scope, excluded, or forbidden by robots.txt)"
	case errors.Is(err, fetch.ErrRedirects):
		return "too many redirects or a loop"
	case fetch.Transient(err):
		return "network error or timeout"
	}
	return "other: " + clipText(err.Error(), 80)
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// fetchCounts returns the fetches made per host since the spider started.
func (o *observations) fetchCounts() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]int, len(o.hosts))
	for name, h := range o.hosts {
		out[name] = h.Fetches
	}
	return out
}

// snapshot returns the archivals since since, the 5 slowest hosts and the
// 5 most frequent kinds of failure.
func (o *observations) snapshot(since time.Time) ([]Archival, []HostTime, []ErrorCount) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var arch []Archival
	for _, a := range o.archivals {
		if !a.At.Before(since) {
			arch = append(arch, a)
		}
	}
	var hosts []HostTime
	for _, h := range o.hosts {
		hosts = append(hosts, *h)
	}
	slices.SortFunc(hosts, func(a, b HostTime) int {
		switch {
		case a.MeanSec > b.MeanSec:
			return -1
		case a.MeanSec < b.MeanSec:
			return 1
		}
		return 0
	})
	var errs []ErrorCount
	for k, n := range o.errs {
		errs = append(errs, ErrorCount{k, n})
	}
	slices.SortFunc(errs, func(a, b ErrorCount) int { return b.Count - a.Count })
	return arch, hosts[:min(5, len(hosts))], errs[:min(5, len(errs))]
}

// limitHint names the setting that cut a fetch short (err), "" for any
// other failure: the fetch's errors say what happened in the words of
// net/http ("context deadline exceeded"), not which key changes it.
func limitHint(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, fetch.ErrTooLarge):
		return "the body was over [fetch] max_body: raise it to mirror pages this large"
	case errors.Is(err, fetch.ErrTooSlow):
		return "the body came slower than [fetch] min_rate bytes a second: lower it (0 turns it off) for a slow server"
	case errors.Is(err, fetch.ErrRedirects) && !errors.Is(err, fetch.ErrRedirectRefused) && strings.Contains(err.Error(), "stopped after"):
		return "more redirects than [fetch] max_redirects"
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "a timeout: [fetch] connect_timeout, header_timeout and timeout (the whole request) bound a fetch"
	}
	return ""
}
