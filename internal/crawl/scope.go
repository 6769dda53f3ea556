package crawl

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/list"
)

// hostScope is the set of hosts whose links the spider follows: the start
// URLs' (or Config.Hosts), and the host of any level-0 line a pass claims
// later (a start URL seeded while running). Read by every worker and by the
// fetcher's redirect check; widened by the loop.
type hostScope struct {
	mu    sync.RWMutex
	hosts map[string]bool
}

func newHostScope(hosts, starts []string) *hostScope {
	s := &hostScope{hosts: map[string]bool{}}
	for _, h := range hosts {
		s.hosts[h] = true
	}
	if len(s.hosts) == 0 {
		for _, u := range starts {
			s.hosts[hostOf(u)] = true
		}
	}
	return s
}

// has reports whether the URL u is on a host in scope.
func (s *hostScope) has(u string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hosts[hostOf(u)]
}

// widen adds the host of u; it reports whether the host is new.
func (s *hostScope) widen(u string) bool {
	h := hostOf(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts[h] {
		return false
	}
	s.hosts[h] = true
	return true
}

// StartLine reports whether the line en is a start URL, whose host is
// followed: a level-0 line whose copy, if it has one, is a page. A list
// written before a start page's requisites went to level 1 (linkLevel)
// holds them at level 0; once fetched, their copies say what they are.
func StartLine(en list.Entry) bool {
	return en.Level == 0 && (en.File == "" || linkname.IsPageName(en.File))
}

// redirectable reports whether a redirect hop to the canonical URL u may
// be made: its host in scope, not cut by [scope] exclude and skip_cgi, the
// limits or the site's machinery, and allowed by robots.txt as this spider
// last read it for u's origin (an origin whose robots.txt it has not read
// yet, as https after http, is redirected to: the target is a line of its
// own, whose own fetch reads robots.txt first). include is not asked: the
// URL redirecting was taken, and may be a requisite (a style sheet moved
// to a versioned name), which include does not pick. A refused hop ends
// the fetch (fetch.ErrRedirectRefused).
func (e *Engine) redirectable(u string) bool {
	if !e.scope.has(u) {
		return false
	}
	if ok, _ := e.follow.rules.FollowIn(true, true, scope.Link{URL: u, Requisite: true}); !ok {
		return false
	}
	if f, _ := e.follow.traps.cfg.Cut(u); f != "" {
		return false
	}
	if e.cfg.IgnoreRobots {
		return true
	}
	scheme, _, _ := strings.Cut(u, "://")
	rules, ok := e.robotsCache().Cached(scheme + "://" + hostOf(u))
	return !ok || rules == nil || rules.Allowed(u)
}

// widenScope follows links on the host of a level-0 line from now on.
func (e *Engine) widenScope(u string) {
	if e.scope.widen(u) {
		e.links.reset() // links to the host are mirrored from now on
		e.log.Info("following links on a new start host", "host", hostOf(u))
	}
}

// follower applies the scope rules and limits to found links, and the
// budget of distinct links taken per host per pass. The loop starts each
// pass's budget (newPass); workers spend it. A link the spider took in an
// earlier pass is in the list already: it costs no budget, so that the
// links every page has (menus, neighbours, an index) leave it to the new.
type follower struct {
	held  *heldLinks // links the budget held back in this run (held.go)
	traps *traps     // machinery and pattern budgets (traps.go)
	rules *scope.Rules
	max   int // Config.MaxNewPerHost; <0 = no limit
	log   *slog.Logger

	mu      sync.Mutex
	taken   map[string]map[string]bool // host -> links taken in this pass
	over    map[string]bool            // hosts whose budget ran out (logged once per pass)
	earlier knownLines                 // links taken in earlier passes (known.go)
}

func newFollower(cfg Config, hosts *hostScope, log *slog.Logger) *follower {
	c := cfg.Scope
	c.Hosts = nil // hostScope keeps the hosts in scope
	all := append([]string(nil), cfg.Hosts...)
	for _, s := range cfg.Starts {
		all = append(all, hostOf(s))
	}
	// The start decides: a test site, an intranet.
	c.AllowLoopback, c.AllowPrivate = scope.Allowed(all)
	r, err := scope.New(c)
	if err != nil {
		// cmd/spider compiles the same config first; this is a
		// programming error, so fall back to the limits alone.
		log.Error("scope rules not compiled; following with limits only", "err", err)
		r, _ = scope.New(scope.Config{Limits: c.Limits, AllowLoopback: c.AllowLoopback, AllowPrivate: c.AllowPrivate})
	}
	return &follower{rules: r, max: cfg.MaxNewPerHost, log: log}
}

// newPass starts a new pass's budget. The links taken so far are queued
// for a pass, which adds them to the list (or, failing, keeps them for
// the next): from now on they cost nothing.
func (f *follower) newPass() {
	f.mu.Lock()
	if f.max >= 0 {
		for _, seen := range f.taken {
			for u := range seen {
				f.earlier.add(u)
			}
		}
	}
	f.taken, f.over = nil, nil
	f.mu.Unlock()
}

// follows reports whether link l found on the page of line en (in scope
// if fromIn; j what is known of it, judgedLinks, or nil) is added to the
// list, as the URL u: the page does not ask robots not to follow it
// (rel="nofollow", or its <meta name="robots">: obeyed as wget does,
// unless robots.txt is ignored too; what the page needs to display is
// fetched all the same), it is within the level limit, the scope rules
// and the defences take it (judgeLink: for a link that is not a
// requisite, not site machinery, not into a URL pattern over its budget,
// traps.go), and its host's budget of links per pass
// (Config.MaxNewPerHost) is not spent. held says the budget alone refused
// it: the page's history keeps it for the next visit (held.go).
func (e *Engine) follows(en list.Entry, fromIn bool, l extract.Link, j *judgedLink) (u string, ok, held bool) {
	if en.Level >= list.MaxLevel {
		return "", false, false
	}
	if l.Nofollow && !e.cfg.IgnoreRobots && !isRequisite(l.Kind) {
		e.log.Debug("link not followed", "url", l.URL, "from", en.URL, "reason", "nofollow")
		return "", false, false
	}
	if e.follow.rules.TooDeep(linkLevel(en.Level, l.Kind, en.URL, l.URL)) {
		e.log.Debug("link not followed", "url", l.URL, "from", en.URL, "reason", "too deep")
		return "", false, false
	}
	if j == nil || !j.decided {
		d := e.judgeLink(l.URL, l.Kind, fromIn)
		j = &d
	}
	if j.why != "" {
		e.log.Debug("link not followed", "url", j.url, "from", en.URL, "reason", j.why)
		return "", false, false
	}
	ok = e.follow.budget(j.url)
	return j.url, ok, !ok
}

// budget counts the distinct links taken per host in the current pass and
// refuses those beyond the host's budget, against pages that spawn
// endless new URLs.
func (f *follower) budget(u string) bool {
	if f.max < 0 {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken == nil {
		f.taken, f.over = map[string]map[string]bool{}, map[string]bool{}
	}
	h := hostOf(u)
	seen := f.taken[h]
	if seen == nil {
		seen = map[string]bool{}
		f.taken[h] = seen
	}
	if seen[u] || f.earlier.has(u) {
		return true
	}
	if len(seen) >= f.max {
		if !f.over[h] {
			f.over[h] = true
			f.log.Info("new links over the host's budget for one pass; the rest are offered again at the next passes and visits", "host", h, "budget", f.max)
		}
		return false
	}
	seen[u] = true
	return true
}
