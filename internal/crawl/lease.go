package crawl

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// lease tracks this spider's heartbeats. A gap of more than half the lease
// between two beats starts a new epoch: the spider was stopped (or
// starved) so long that the claims it held may have been taken back by
// another spider, so a claim of an older epoch is void. The loop beats at
// each pass, the heartbeat goroutine between passes; workers and the group
// commit ask whether a claim is void before they write.
type lease struct {
	period time.Duration // Config.Lease; 0 = claims are never taken back

	mu    sync.Mutex
	last  time.Time // last heartbeat published
	epoch int64
}

// beat records a heartbeat published at now; it reports whether a new
// epoch began, and the gap since the last beat.
func (l *lease) beat(now time.Time) (newEpoch bool, gap time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() {
		gap = now.Sub(l.last)
	}
	if l.period > 0 && !l.last.IsZero() && gap > l.period/2 {
		l.epoch++
		newEpoch = true
	}
	l.last = now
	return newEpoch, gap
}

// current returns the epoch claims are made in now.
func (l *lease) current() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// voided reports whether a claim of the given epoch may have been taken
// back, so what was fetched for it must not be written: its epoch is over,
// or no heartbeat was published for half the lease (the spider may have
// just woken up and not noticed yet).
func (l *lease) voided(epoch int64, now time.Time) bool {
	if l.period <= 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return epoch != l.epoch || now.Sub(l.last) > l.period/2
}

// beat publishes a heartbeat's effect on the epoch, with a warning when
// older claims became void.
func (e *Engine) beat(now time.Time) {
	if newEpoch, gap := e.lease.beat(now); newEpoch {
		e.log.Warn("no heartbeat for more than half the lease (was this spider stopped?): results of older claims are dropped",
			"gap", gap.Round(time.Millisecond))
	}
}

// heartbeats publishes a heartbeat every quarter lease between passes, so
// a spider whose fetches are slow keeps its claims while it works on them.
// The goroutine it starts is owned by Run and ends when stop is called
// (after the last pass: the spider holds its claims until then).
func heartbeats(ctx context.Context, l Store, spider string, period time.Duration,
	now func() time.Time, beat func(time.Time), log *slog.Logger) (stop func()) {
	if period <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				at := now()
				if err := l.Beat(ctx, spider, at); err != nil {
					log.Debug("heartbeat not published", "err", err)
					continue
				}
				beat(at)
			}
		}
	}()
	return func() { cancel(); <-done }
}
