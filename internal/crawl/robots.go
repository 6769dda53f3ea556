package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/robots"
	"github.com/spider-mirror/spider/list"
)

// robotsState is the engine's robots.txt cache, made on first use (the
// fetcher it uses is set up after New's other fields), and why each host's
// robots.txt could not be had, for the lines that wait for it.
type robotsState struct {
	once  sync.Once
	cache *robots.Cache

	mu   sync.Mutex
	errs map[string]error // host → the last fetch's failure; none once fetched
}

// setErr records how fetching host's robots.txt ended: err nil for an
// answer the rules can be read from.
func (s *robotsState) setErr(host string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.errs, host)
		return
	}
	if s.errs == nil {
		s.errs = map[string]error{}
	}
	s.errs[host] = err
}

// unreachable returns the error of a line whose host's robots.txt could
// not be had: errRobotsUnreachable, with the cause where it is known.
func (s *robotsState) unreachable(host string, status int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.errs[host]; err != nil {
		return fmt.Errorf("%w: %w", errRobotsUnreachable, err)
	}
	return fmt.Errorf("%w (status %d)", errRobotsUnreachable, status)
}

func (e *Engine) robotsCache() *robots.Cache {
	e.polite.robots.once.Do(func() {
		e.polite.robots.cache = &robots.Cache{
			Agent: robots.Token(e.fetch.UserAgent()),
			Fetch: e.fetchRobots,
		}
	})
	return e.polite.robots.cache
}

// fetchRobots gets robots.txt with the spider's client and limits, in the
// host's politeness slot like any other request. Too many redirects or a
// redirect loop count as "unavailable" (RFC 9309 §2.3.1.2), like a 4xx.
func (e *Engine) fetchRobots(ctx context.Context, robotsURL string) robots.Answer {
	host := hostOf(robotsURL)
	resp, _, err := e.polite.get(ctx, ctx, e.fetchMeta, robotsURL, nil, true, nil, "")
	if ctx.Err() == nil {
		e.polite.robots.setErr(host, err)
	}
	var he *fetch.HTTPError
	switch {
	case err == nil:
		return robots.Answer{Status: resp.Status, Body: resp.Body}
	case errors.As(err, &he):
		return robots.Answer{Status: he.StatusCode}
	case errors.Is(err, fetch.ErrRedirects):
		return robots.Answer{Unavailable: true}
	default:
		return robots.Answer{Err: err}
	}
}

// robotsDenied consults the host's robots.txt (cached for at most 24 h)
// before the page of o's job is fetched. It returns true when the page must
// not be fetched; o's result then says why, and its history (nil when
// handing back) gives the reason in words:
//
//   - robots.txt forbids the URL: the line is recorded disallowed, its
//     time the time of this check, the copy (if any) untouched. It is due
//     again a window later, and this same check then fetches it if
//     robots.txt has changed to allow it;
//   - robots.txt is unreachable (5xx, network error): everything on the
//     host is off limits for now (RFC 9309); the line is recorded as an
//     error, as a transient failure, and retried after the usual back-off;
//   - the spider is stopping: the line is handed back (state 0).
//
// It also applies the host's Crawl-delay to the politeness of every spider
// of the list.
func (e *Engine) robotsDenied(ctx context.Context, o *outcome) bool {
	if e.cfg.IgnoreRobots {
		return false
	}
	j, res := o.job, &o.res
	en := j.en
	host := hostOf(en.URL)
	scheme, _, _ := strings.Cut(en.URL, "://")
	rules, changed, err := e.robotsCache().Rules(ctx, scheme+"://"+host)
	if err != nil {
		return true // stopping: hand the line back
	}
	if changed {
		e.log.Info("robots.txt changed", "host", host, "crawl_delay", rules.CrawlDelay)
	}
	e.setCrawlDelay(host, rules.CrawlDelay)
	if rules.Allowed(en.URL) {
		return false
	}
	now := e.cfg.Now()
	if e.lease.voided(j.epoch, now) {
		return true
	}
	h := j.rec
	h.URL = en.URL
	if rules.DisallowsAll() {
		res.State = list.Error
		if en.File == "" {
			res.Modified = now
		}
		h = history.Failed(h, e.polite.robots.unreachable(host, rules.Status), now)
		h.Status = 0
		h.Reason = fmt.Sprintf("robots.txt unreachable (status %d): nothing on the host is fetched for now; next attempt after %s",
			rules.Status, h.RetryAt.Format(time.RFC3339))
		e.polite.retry.hold(en.URL, h.RetryAt)
		o.count.Errors++
		e.obs.failed(errRobotsUnreachable)
		e.obs.warns.note(slog.LevelWarn, "robots.txt unreachable: the host is off limits for now", en.URL, "robots_status", rules.Status)
		o.rec = &h
		return true
	}
	res.State, res.Modified = list.Disallowed, now
	h.Reason = "disallowed by robots.txt as of " + now.UTC().Format(time.RFC3339) + "; checked again when due"
	o.count.Disallowed++
	e.obs.warns.note(slog.LevelInfo, "disallowed by robots.txt", en.URL)
	o.rec = &h
	return true
}

var errRobotsUnreachable = errors.New("robots.txt unreachable")

// setCrawlDelay applies host's Crawl-delay d to the politeness of every
// spider of the list, and says so once when it sets the host's pace: a
// long one (up to 2m) makes a short run fetch next to nothing.
func (e *Engine) setCrawlDelay(host string, d time.Duration) {
	if e.polite.setCrawlDelay(host, d) && d > e.cfg.Delay {
		e.log.Info("robots.txt sets the host's pace", "host", host, "crawl_delay", d, "delay", e.cfg.Delay,
			"requests_per_hour", int(time.Hour/d))
	}
}
