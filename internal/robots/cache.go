package robots

import (
	"context"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Answer is what fetching robots.txt gave: the final status and body, or
// Err for no HTTP answer at all (network error, timeout, redirect loop).
type Answer struct {
	Status      int
	Body        []byte
	Err         error
	Unavailable bool // no robots.txt to be had, e.g. too many redirects: like a 4xx
}

// Cache keeps each host's rules for at most TTL. Fill in Fetch and Agent;
// the zero values of the other fields take the defaults.
type Cache struct {
	// Fetch gets robotsURL ("scheme://host/robots.txt"). It is called at
	// most once at a time per host.
	Fetch   func(ctx context.Context, robotsURL string) Answer
	Agent   string           // product token, see Token
	TTL     time.Duration    // how long an answer is kept; 0 = 24h, never more
	FailTTL time.Duration    // how long "unreachable" is kept; 0 = 10m
	Now     func() time.Time // nil = time.Now

	group singleflight.Group
	mu    sync.Mutex
	hosts map[string]entry
}

type entry struct {
	rules   *Rules
	expires time.Time
}

// Rules returns the rules for the host of origin ("scheme://host[:port]"),
// fetching robots.txt if the cached answer is missing or expired. changed
// reports whether the rules differ from the ones they replace (the first
// fetch of a host does not count as a change). If ctx ends first, Rules
// returns ctx's error and caches nothing.
func (c *Cache) Rules(ctx context.Context, origin string) (r *Rules, changed bool, err error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.hosts[origin]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.rules, false, nil
	}
	type result struct {
		r       *Rules
		changed bool
	}
	v, err, _ := c.group.Do(origin, func() (any, error) {
		c.mu.Lock()
		cur, have := c.hosts[origin]
		c.mu.Unlock()
		if have && c.now().Before(cur.expires) {
			return result{cur.rules, false}, nil // fetched while we waited
		}
		a := c.Fetch(ctx, strings.TrimSuffix(origin, "/")+"/robots.txt")
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rules, ttl := c.decide(a)
		c.mu.Lock()
		if c.hosts == nil {
			c.hosts = map[string]entry{}
		}
		c.hosts[origin] = entry{rules, c.now().Add(ttl)}
		c.mu.Unlock()
		return result{rules, have && !rules.same(cur.rules)}, nil
	})
	if err != nil {
		return nil, false, err
	}
	res := v.(result)
	return res.r, res.changed, nil
}

// Cached returns the rules last fetched for origin, expired or not,
// without fetching: what is known of the host now, for deciding how to
// link to a URL without waiting for the network. ok is false for a host
// not fetched yet.
func (c *Cache) Cached(origin string) (r *Rules, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.hosts[origin]
	return e.rules, ok
}

// decide applies RFC 9309's status rules to an answer.
func (c *Cache) decide(a Answer) (*Rules, time.Duration) {
	ttl := c.TTL
	if ttl <= 0 || ttl > 24*time.Hour {
		ttl = 24 * time.Hour
	}
	fail := c.FailTTL
	if fail <= 0 {
		fail = 10 * time.Minute
	}
	switch {
	case a.Unavailable:
		return AllowAll(a.Status), ttl
	case a.Err != nil || a.Status >= 500 || a.Status == 0:
		r := DisallowAll()
		r.Status = a.Status
		return r, min(fail, ttl)
	case a.Status >= 400:
		return AllowAll(a.Status), ttl
	case a.Status >= 200 && a.Status < 300:
		return Parse(a.Body, c.Agent), ttl
	default: // 1xx, 3xx left over: treat as unavailable
		return AllowAll(a.Status), ttl
	}
}

// same reports whether r and o decide alike.
func (r *Rules) same(o *Rules) bool {
	return o != nil && r.all == o.all && r.body == o.body && r.CrawlDelay == o.CrawlDelay
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
