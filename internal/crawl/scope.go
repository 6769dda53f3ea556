package crawl

import (
	"sync"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/list"
)

// DefaultMaxNewPerHost is Config.MaxNewPerHost's default.
const DefaultMaxNewPerHost = 5000

// follower applies the scope rules and limits to found links, and the
// budget of links taken per host per pass.
type follower struct {
	once  sync.Once
	rules *scope.Rules

	mu    sync.Mutex
	cycle int                        // the pass the counts below belong to
	taken map[string]map[string]bool // host -> links taken in this pass
	over  map[string]bool            // hosts whose budget ran out (logged once per pass)
}

func (e *Engine) scopeRules() *scope.Rules {
	e.follow.once.Do(func() {
		c := e.cfg.Scope
		c.Hosts = nil // the engine keeps the hosts in scope (inScope)
		hosts := append([]string(nil), e.cfg.Hosts...)
		for _, s := range e.cfg.Starts {
			hosts = append(hosts, hostOf(s))
		}
		// The start decides: a test site, an intranet.
		c.AllowLoopback, c.AllowPrivate = scope.Allowed(hosts)
		r, err := scope.New(c)
		if err != nil {
			// cmd/spider compiles the same config first; this is a
			// programming error, so fall back to the limits alone.
			e.log.Error("scope rules not compiled; following with limits only", "err", err)
			r, _ = scope.New(scope.Config{Limits: c.Limits, AllowLoopback: c.AllowLoopback, AllowPrivate: c.AllowPrivate})
		}
		e.follow.rules = r
	})
	return e.follow.rules
}

// follows reports whether link l found on the page of line en is added to
// the list: it passes the limits and scope rules, and its host's budget of
// links per pass (Config.MaxNewPerHost) is not spent.
func (e *Engine) follows(en list.Entry, l extract.Link) bool {
	if en.Level >= list.MaxLevel {
		return false
	}
	ok, why := e.scopeRules().FollowIn(e.inScope(en.URL), e.inScope(l.URL),
		scope.Link{URL: l.URL, Level: linkLevel(en.Level, l.Kind), Requisite: isRequisite(l.Kind)})
	if !ok {
		e.log.Debug("link not followed", "url", l.URL, "from", en.URL, "reason", why)
		return false
	}
	return e.budget(l.URL)
}

// budget counts the distinct links taken per host in the current pass and
// refuses those beyond the host's budget, against pages that spawn
// endless new URLs.
func (e *Engine) budget(u string) bool {
	max := e.cfg.MaxNewPerHost
	if max == 0 {
		max = DefaultMaxNewPerHost
	}
	if max < 0 {
		return true
	}
	cycle := int(e.cycles.Load()) // a read of e.mu's for every link made the workers queue for it
	f := &e.follow
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken == nil || f.cycle != cycle {
		f.cycle, f.taken, f.over = cycle, map[string]map[string]bool{}, map[string]bool{}
	}
	h := hostOf(u)
	seen := f.taken[h]
	if seen == nil {
		seen = map[string]bool{}
		f.taken[h] = seen
	}
	if seen[u] {
		return true
	}
	if len(seen) >= max {
		if !f.over[h] {
			f.over[h] = true
			e.log.Warn("too many new links for one host in one pass; the rest wait for the page's next visit", "host", h, "budget", max)
		}
		return false
	}
	seen[u] = true
	return true
}
