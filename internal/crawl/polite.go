package crawl

import (
	"context"
	"sync"
	"time"
)

// politeness spaces this process's requests to one host by at least delay.
// Slots are handed out in order under a mutex: a worker reserves the next
// free slot for its host and sleeps until it comes.
type politeness struct {
	delay time.Duration
	mu    sync.Mutex
	next  map[string]time.Time
}

func newPoliteness(delay time.Duration) *politeness {
	return &politeness{delay: delay, next: map[string]time.Time{}}
}

func (p *politeness) wait(ctx context.Context, host string) error {
	if p.delay <= 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	now := time.Now()
	slot := now
	if n := p.next[host]; n.After(now) {
		slot = n
	}
	p.next[host] = slot.Add(p.delay)
	p.mu.Unlock()
	if d := slot.Sub(now); d > 0 {
		t := time.NewTimer(d)
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
