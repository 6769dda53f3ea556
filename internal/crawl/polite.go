package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/hostgate"
)

// Gate is the shared pace of the hosts (internal/hostgate's contract):
// files in LIST.hosts.d, or internal/pglist's table for spiders on
// several machines.
type Gate = hostgate.Pace

// politeness spaces requests to each host. The budget is shared by every
// spider process of the list through a Gate (Config.Gate; by default
// internal/hostgate's files in LIST.hosts.d): with a delay, a request
// starts at least the host's delay after the previous one of any spider
// ended, and they never overlap; without one, at most Config.HostConns
// are in flight at once; a 429 or 503 slows the host down for all of
// them. Within the process, one worker per host at a time queues at the
// shared gate (the others wait for it in memory), so the file sees one
// poller per process.
//
// Without a delay (Config.Delay 0: one's own site) and without a
// Crawl-delay, a host is not paced at all and the shared gate is skipped:
// its flock and record cost more than the fetch of a small local page.
// Connections are then capped per process (the transport), and the first
// 429 or 503 from the host puts it under the shared gate for the rest of
// the run.
//
// If the gate cannot be opened (the list's directory is read-only, say),
// politeness falls back to spacing this process's requests only, and says
// so in the log.
type politeness struct {
	retry  *backoff     // URLs held back after a failure
	robots *robotsState // robots.txt cache (robots.go)

	delay time.Duration // configured minimum
	base  time.Duration // first back-off step after a 429/503 without Retry-After
	gate  Gate
	own   bool // gate was opened here (LIST.hosts.d), and is closed here

	mu    sync.Mutex
	crawl map[string]time.Duration // Crawl-delay per host, from robots.txt
	queue map[string]chan struct{} // one waiter per host at the gate
	wake  map[string]chan struct{} // a request of this process to the host ended
	next  map[string]time.Time     // local fallback: next slot per host
	gated map[string]bool          // hosts that answered 429/503: always through the gate
}

func newPoliteness(cfg Config, listPath string) *politeness {
	p := &politeness{retry: newBackoff(), robots: &robotsState{}, delay: cfg.Delay, base: max(cfg.Delay, time.Second),
		crawl: map[string]time.Duration{}, queue: map[string]chan struct{}{},
		wake: map[string]chan struct{}{}, next: map[string]time.Time{}, gated: map[string]bool{}}
	if cfg.Gate != nil {
		p.gate = cfg.Gate
		return p
	}
	if listPath == "" {
		return p
	}
	g, err := hostgate.Open(listPath+".hosts.d", hostgate.Options{Conns: cfg.HostConns, MaxSlow: cfg.MaxSlowDown})
	if err != nil {
		cfg.Logger.Warn("per-host politeness is per process only: the shared state cannot be opened", "err", err)
		return p
	}
	p.gate, p.own = g, true
	return p
}

func (p *politeness) close() {
	if p.own {
		p.gate.Close()
	}
}

// sharedCrawlDelay is the Crawl-delay some spider of the list published
// for host, valid at now; 0 if none is, or if there is no shared gate.
func (p *politeness) sharedCrawlDelay(host string, now time.Time) time.Duration {
	if p.gate == nil {
		return 0
	}
	return p.gate.CrawlDelay(host, now)
}

// unpaced reports whether requests to host skip the shared gate: no delay
// configured, no Crawl-delay, no 429/503 seen.
func (p *politeness) unpaced(host string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay == 0 && p.crawl[host] == 0 && !p.gated[host]
}

// paced reports whether requests to host take turns, one process's
// worker at a time waiting for the next (turns.go): any host but those
// that unpaced skips the gate for.
func (p *politeness) paced(host string) bool {
	if p.gate == nil {
		return p.hostDelay(host) > 0
	}
	return !p.unpaced(host)
}

// hostDelay is the spacing for host: the configured delay, raised by the
// host's Crawl-delay.
func (p *politeness) hostDelay(host string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.delay, p.crawl[host])
}

// crawlDelay is host's Crawl-delay; 0 if robots.txt sets none.
func (p *politeness) crawlDelay(host string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crawl[host]
}

// setCrawlDelay records host's Crawl-delay and publishes it to the other
// spiders of the list; it reports whether it is new to this spider.
func (p *politeness) setCrawlDelay(host string, d time.Duration) (changed bool) {
	p.mu.Lock()
	old, ok := p.crawl[host]
	p.crawl[host] = d
	p.mu.Unlock()
	if p.gate != nil && (!ok || old != d) {
		p.gate.SetCrawlDelay(host, d)
	}
	return !ok || old != d
}

// acquire waits until a request to host may start. The caller makes the
// request and then calls release with its error (nil for a 2xx).
func (p *politeness) acquire(ctx context.Context, host string) (release func(error), err error) {
	if p.gate == nil {
		return func(error) {}, p.waitLocal(ctx, host)
	}
	if p.unpaced(host) {
		return func(ferr error) {
			if o := p.paceVerdict(ferr); o.Throttled {
				p.mu.Lock()
				p.gated[host] = true
				p.mu.Unlock()
				p.gate.Report(host, o) // the slow-down binds every spider at once
			}
		}, ctx.Err()
	}
	return p.acquireGated(ctx, host)
}

// acquireGated is acquire through the shared gate whatever the host's
// pace: robots.txt is fetched so, as its Crawl-delay may pace the request
// that follows it.
func (p *politeness) acquireGated(ctx context.Context, host string) (release func(error), err error) {
	if p.gate == nil {
		return func(error) {}, p.waitLocal(ctx, host)
	}
	p.mu.Lock()
	q, wake := p.queue[host], p.wake[host]
	if q == nil {
		q, wake = make(chan struct{}, 1), make(chan struct{}, 1)
		p.queue[host], p.wake[host] = q, wake
	}
	p.mu.Unlock()
	select {
	case q <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// Woken early when a request of this process to the host ends: the
	// gate polls for connections freed by other processes, but need not
	// wait a poll for those freed here.
	l, err := p.gate.Acquire(ctx, host, p.hostDelay(host), wake)
	<-q
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The shared state failed (disk full?): go on with local spacing.
		return func(error) {}, p.waitLocal(ctx, host)
	}
	return func(ferr error) {
		p.gate.Release(l, p.paceVerdict(ferr))
		select {
		case wake <- struct{}{}:
		default:
		}
	}, nil
}

// errHopStopped ends a fetch whose redirect hop was waiting for its
// host's turn when the run stopped: the line goes back, untouched.
var errHopStopped = errors.New("stopped while a redirect hop waited for its host's turn")

// turn is a request's place at its host, redirect hops included: the
// hop's request waits for its host's turn like any other, once the
// request that answered with the redirect has ended its own.
type turn struct {
	p       *politeness
	waitCtx context.Context // the run's: a stopping spider waits for no turn
	release func(error)
}

// get fetches u with f in its host's turn, and each redirect hop in its
// own, and says how long the fetch took from its first request on. It
// returns f's answer; a hop that could not wait returns an error wrapping
// errHopStopped, a turn that could not be had waitCtx's error. gated
// takes the first turn through the shared gate whatever the host's pace
// (acquireGated: robots.txt). turned, if not nil, is called once the
// first turn came, before the request. A redirect hop to same (unless "")
// is not made: the fetch returns the redirect as a *fetch.HTTPError
// (sameRedirect).
func (p *politeness) get(ctx, waitCtx context.Context, f *fetch.Client, u string, hdr http.Header, gated bool, turned func(), same string) (*fetch.Response, time.Duration, error) {
	acquire := p.acquire
	if gated {
		acquire = p.acquireGated
	}
	release, err := acquire(waitCtx, hostOf(u))
	if err != nil {
		return nil, 0, err
	}
	if turned != nil {
		turned()
	}
	began := time.Now()
	t := &turn{p: p, waitCtx: waitCtx, release: release}
	hop := t.hop
	if same != "" {
		hop = func(ctx context.Context, next string) error {
			if next == same {
				return http.ErrUseLastResponse
			}
			return t.hop(ctx, next)
		}
	}
	resp, err := f.GetPaced(ctx, u, hdr, hop)
	t.release(err)
	return resp, time.Since(began), err
}

// hop ends the turn of the request that answered with a redirect (the
// host answered: no slow-down) and waits for the turn of the request to
// next.
func (t *turn) hop(_ context.Context, next string) error {
	t.release(nil)
	t.release = func(error) {}
	release, err := t.p.acquire(t.waitCtx, hostOf(next))
	if err != nil {
		return fmt.Errorf("%w: %w", errHopStopped, err)
	}
	t.release = release
	return nil
}

// paceVerdict says what a fetch's error means for the host's pace.
func (p *politeness) paceVerdict(err error) hostgate.Outcome {
	if err == nil {
		return hostgate.Outcome{OK: true}
	}
	var he *fetch.HTTPError
	if !errors.As(err, &he) {
		return hostgate.Outcome{} // network trouble: no verdict
	}
	if he.StatusCode == http.StatusTooManyRequests || he.StatusCode == http.StatusServiceUnavailable {
		return hostgate.Outcome{Throttled: true, RetryAfter: history.RetryAfter(he.Header, time.Now()), Base: p.base}
	}
	return hostgate.Outcome{OK: he.StatusCode < 500}
}

// waitLocal spaces this process's requests to host by its delay.
func (p *politeness) waitLocal(ctx context.Context, host string) error {
	d := p.hostDelay(host)
	if d <= 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	now := time.Now()
	slot := now
	if n := p.next[host]; n.After(now) {
		slot = n
	}
	p.next[host] = slot.Add(d)
	p.mu.Unlock()
	if w := slot.Sub(now); w > 0 {
		t := time.NewTimer(w)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// backoff keeps URLs that failed out of this process's claims until the
// time their history says they may be tried again (see failed and gone).
// Expired entries are dropped at the next pass, so it holds only the URLs
// waiting now.
type backoff struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func newBackoff() *backoff {
	return &backoff{until: map[string]time.Time{}}
}

func (b *backoff) hold(url string, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.until[url] = until
}

func (b *backoff) ok(url string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.until, url)
}

// held reports whether url waits in the backoff at now.
func (b *backoff) held(url string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.until[url]
	return ok && now.Before(t)
}

// skip returns the Picker veto for a pass at now.
func (b *backoff) skip(now time.Time) func(string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.until) == 0 {
		return nil
	}
	snap := make(map[string]bool, len(b.until))
	for u, t := range b.until {
		if now.Before(t) {
			snap[u] = true
		} else {
			delete(b.until, u)
		}
	}
	return func(u string) bool { return snap[u] }
}
