package crawl

import (
	"bytes"
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/internal/sitemap"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
)

// Sitemaps as hints (Config.Sitemaps). The hosts whose lines a pass claims
// have their sitemaps read, one host at a time, on a goroutine the loop
// owns (sitemaploop.go); this file is that goroutine's work, one host's
// read:
//
//   - which files: the Sitemap lines of the host's robots.txt, or, if it
//     names none, /sitemap.xml at its root; only files on hosts in scope,
//     that robots.txt allows. An index's sitemaps are read after it,
//     those with the newest lastmod first; an index listed by an index
//     is not read (an index nests once);
//   - each file is a request to its host like a page's: in the host's
//     turn (polite.go), with the user agent, conditional on the
//     validators of its last read, and never into the mirror or the list;
//   - a file is read again only once the reader's Config.SitemapEvery
//     has passed since any spider of the list read it (its record in
//     LIST.meta, under sitemapKey, says when), sooner after a transient
//     failure (sitemapDue);
//   - a host's read costs at most sitemapFiles files, sitemapURLs URLs
//     and sitemapBytes bytes once decompressed, each file at most the
//     protocol's limits (internal/sitemap);
//   - a listed URL is taken if it is on the sitemap's host or the host
//     read, passes the scope rules at level 1 and is not cut by the
//     defences (traps.go): it is added like a link at level 1, with its
//     lastmod, if any (clamped to now), as the Add's Hint. A hint only
//     makes a line whose copy is older due (list.Add); it never keeps a
//     changed page from being fetched.

// sitemapRead is one host's read, the answer of the goroutine that read it.
type sitemapRead struct {
	origin string
	adds   []list.Add
	taken  map[string]bool // the adds' URLs
	files  int             // files fetched with a 2xx answer
	listed int             // entries of the url sets read
	hinted int             // adds with a lastmod
}

// sitemapBudget is what is left of one host's read.
type sitemapBudget struct {
	files, urls int
	bytes       int64
}

func (b *sitemapBudget) spent() bool { return b.files <= 0 || b.urls <= 0 || b.bytes <= 0 }

// sitemapKey is the key of a sitemap's record in LIST.meta: a canonical
// URL has no fragment, so it is never a line's.
func sitemapKey(u string) string { return u + "#sitemap" }

// readSitemaps reads the sitemaps of origin ("scheme://host") and returns
// what they list that the crawl takes. ctx ends it early; what was read
// by then is returned.
func (e *Engine) readSitemaps(ctx context.Context, origin string) sitemapRead {
	rd := sitemapRead{origin: origin}
	tops := e.sitemapsOf(ctx, origin)
	b := &sitemapBudget{files: sitemapFiles, urls: sitemapURLs, bytes: sitemapBytes}
	seen := map[string]bool{}
	var recs []meta.Record
	var children []sitemap.Entry
	for _, u := range tops {
		kids, rec := e.readSitemap(ctx, &rd, origin, u, b, seen, true)
		children = append(children, kids...)
		recs = append(recs, rec...)
	}
	// The newest first: when the budget ends the read, what changed
	// last was read.
	slices.SortStableFunc(children, func(a, b sitemap.Entry) int { return b.Lastmod.Compare(a.Lastmod) })
	for _, c := range children {
		if ctx.Err() != nil || b.spent() {
			break
		}
		_, rec := e.readSitemap(ctx, &rd, origin, c.Loc, b, seen, false)
		recs = append(recs, rec...)
	}
	if len(recs) > 0 {
		if err := e.cfg.History.Put(recs); err != nil {
			e.log.Warn("sitemap history not stored; the sitemaps are read again sooner", "host", hostOf(origin), "err", err)
		}
	}
	if b.spent() {
		e.log.Info("sitemaps: the host's budget for one read is spent; the rest is read next time", "host", hostOf(origin),
			"files", sitemapFiles, "urls", sitemapURLs, "bytes", sitemapBytes)
	}
	if len(recs) > 0 {
		e.obs.sitemapRead(hostOf(origin), rd, e.cfg.Now())
	}
	return rd
}

// sitemapsOf returns the sitemaps robots.txt names for origin, in scope
// and allowed, or origin's /sitemap.xml if it names none.
func (e *Engine) sitemapsOf(ctx context.Context, origin string) []string {
	var named []string
	if !e.cfg.IgnoreRobots {
		rules, _, err := e.robotsCache().Rules(ctx, origin)
		if err != nil || rules.DisallowsAll() {
			return nil // stopping, or the host is off limits for now
		}
		e.setCrawlDelay(hostOf(origin), rules.CrawlDelay) // before its first sitemap, as before its first page
		named = rules.Sitemaps
	}
	var out []string
	for _, s := range named {
		if u, err := urlkey.Parse(s); err == nil && e.scope.has(u) && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	if len(named) == 0 {
		out = append(out, origin+"/sitemap.xml")
	}
	return out
}

// readSitemap reads the sitemap u, unless it was read lately, the budget
// is spent or robots.txt forbids it, and adds what it lists to rd: the
// entries of an index (if index is true; none otherwise), or the adds of a
// url set. rec is its new record, none if no request was made.
func (e *Engine) readSitemap(ctx context.Context, rd *sitemapRead, origin, u string, b *sitemapBudget, seen map[string]bool, index bool) (kids []sitemap.Entry, rec []meta.Record) {
	if seen[u] || b.spent() || !e.sitemapAllowed(ctx, u) {
		return nil, nil
	}
	seen[u] = true
	now := e.cfg.Now()
	old, err := e.cfg.History.Get([]string{sitemapKey(u)})
	if err != nil {
		e.log.Warn("sitemap history not read; reading it whole", "url", u, "err", err)
	}
	r := old[sitemapKey(u)]
	if !sitemapDue(r, now, e.sitemapEvery()) {
		return nil, nil // read lately, by this spider or another
	}
	e.reserveSitemap(r, u, now)
	b.files--
	resp, _, err := e.polite.get(ctx, ctx, e.fetchMeta, u, history.Conditional(r), false, nil, "")
	if ctx.Err() != nil {
		return nil, nil
	}
	r = sitemapRecord(r, u, resp, err, now)
	switch {
	case fetch.NotModified(err):
		e.log.Info("sitemap unchanged", "url", u)
	case err != nil:
		level := slog.LevelWarn
		if fetch.Gone(err) {
			level = slog.LevelDebug // most sites have no /sitemap.xml
		}
		e.log.Log(ctx, level, "sitemap not read", "url", u, "err", err)
	default:
		kids = e.takeSitemap(rd, origin, u, resp.Body, b, index)
	}
	return kids, []meta.Record{r}
}

// reserveSitemap records that the sitemap u, whose record is r, is being
// read at now, before the request: the spiders of a list start together
// (a timer, a reboot), and one that looks a moment after another began
// the read finds it read lately instead of requesting it too. The record
// keeps its validators for the conditional request; the read's own
// record replaces it. If it cannot be stored the read goes on: at worst
// another spider reads the sitemap as well.
func (e *Engine) reserveSitemap(r meta.Record, u string, now time.Time) {
	r.URL, r.LastAttempt, r.RetryAt = sitemapKey(u), now, time.Time{}
	if err := e.cfg.History.Put([]meta.Record{r}); err != nil {
		e.log.Debug("sitemap read not reserved", "url", u, "err", err)
	}
}

// takeSitemap reads the body of the sitemap u: the adds of a url set go to
// rd, the entries of an index are returned (if index; an index in an
// index is not read).
func (e *Engine) takeSitemap(rd *sitemapRead, origin, u string, body []byte, b *sitemapBudget, index bool) []sitemap.Entry {
	var entries []sitemap.Entry
	lim := sitemap.Limits{MaxEntries: min(sitemap.MaxEntries, b.urls), MaxBytes: min(sitemap.MaxBytes, b.bytes)}
	kind, n, err := sitemap.Read(bytes.NewReader(body), lim, func(en sitemap.Entry) bool {
		entries = append(entries, en)
		return true
	})
	b.bytes -= n
	rd.files++
	if err != nil {
		e.log.Warn("sitemap read in part", "url", u, "entries", len(entries), "err", err)
	}
	switch {
	case kind == sitemap.Index && index:
		var kids []sitemap.Entry
		for _, en := range entries {
			if c, err := urlkey.Parse(en.Loc); err == nil && e.scope.has(c) && sameHost(c, u, origin) {
				kids = append(kids, sitemap.Entry{Loc: c, Lastmod: en.Lastmod})
			}
		}
		e.log.Info("sitemap index read", "url", u, "sitemaps", len(entries), "taken", len(kids))
		return kids
	case kind == sitemap.Index:
		// The site's doing, and nothing the user can change: no warning
		// (under cron, mail) at every read.
		e.log.Info("sitemap index listed by an index: not read (an index nests once)", "url", u)
		return nil
	}
	b.urls -= len(entries)
	rd.listed += len(entries)
	taken, hinted := 0, 0
	now := e.cfg.Now()
	for _, en := range entries {
		c, ok := e.sitemapTakes(en.Loc, u, origin)
		if !ok || rd.taken[c] {
			continue
		}
		if rd.taken == nil {
			rd.taken = map[string]bool{}
		}
		rd.taken[c] = true
		a := list.Add{URL: c, Level: 1}
		if !en.Lastmod.IsZero() {
			a.Hint = en.Lastmod
			if a.Hint.After(now) {
				a.Hint = now // a date in the future says "now" at most
			}
			hinted++
		}
		rd.adds = append(rd.adds, a)
		taken++
	}
	rd.hinted += hinted
	e.log.Info("sitemap read", "url", u, "urls", len(entries), "taken", taken, "with_lastmod", hinted)
	return nil
}

// sitemapTakes reports whether the URL loc, listed by the sitemap sm read
// for origin, is taken, and returns its canonical form as the crawl takes
// it.
func (e *Engine) sitemapTakes(loc, sm, origin string) (string, bool) {
	c, err := urlkey.Parse(loc)
	if err != nil || !sameHost(c, sm, origin) {
		return "", false
	}
	c = e.follow.traps.cfg.Strip(c)
	if ok, why := e.follow.rules.FollowIn(true, e.scope.has(c), scope.Link{URL: c, Level: 1}); !ok {
		e.log.Debug("sitemap URL not taken", "url", c, "from", sm, "reason", why)
		return "", false
	}
	if why := e.follow.traps.judge(c); why != "" {
		e.log.Debug("sitemap URL not taken", "url", c, "from", sm, "reason", why)
		return "", false
	}
	return c, true
}

// sameHost reports whether u is on the host of the sitemap sm or of
// origin, the host whose robots.txt named sm: the protocol lets a
// sitemap list no other.
func sameHost(u, sm, origin string) bool {
	h := hostOf(u)
	return h == hostOf(sm) || h == hostOf(origin)
}

// sitemapAllowed reports whether robots.txt lets the spider read the
// sitemap u.
func (e *Engine) sitemapAllowed(ctx context.Context, u string) bool {
	if e.cfg.IgnoreRobots {
		return true
	}
	scheme, _, _ := strings.Cut(u, "://")
	rules, _, err := e.robotsCache().Rules(ctx, scheme+"://"+hostOf(u))
	if err != nil {
		return false
	}
	e.setCrawlDelay(hostOf(u), rules.CrawlDelay)
	return rules.Allowed(u)
}

// sitemapRecord is the record of a sitemap's read at now: its validators,
// when it was read, and, after a transient failure, when it may be read
// again.
func sitemapRecord(r meta.Record, u string, resp *fetch.Response, err error, now time.Time) meta.Record {
	r.URL, r.Attempts, r.LastAttempt, r.RetryAt = sitemapKey(u), r.Attempts+1, now, time.Time{}
	switch {
	case err == nil:
		r.Status, r.Error, r.LastOK = resp.Status, "", now
		r.ETag, r.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	case fetch.NotModified(err):
		r.Status, r.Error, r.LastOK = 304, "", now
	default:
		r.Status, r.Error = fetch.Status(err), err.Error()
	}
	if err != nil && fetch.Transient(err) {
		r.RetryAt = now.Add(sitemapRetry)
	}
	return r
}

// sitemapDue reports whether a sitemap whose record is r may be read at
// now by a spider that lets sitemaps be for every: each spider applies
// its own interval to the last read of any of them, so a slow spider's
// read never holds a fast one back longer than its own window. After a
// transient failure it is sooner: at the record's retry time, or every,
// whichever comes first.
func sitemapDue(r meta.Record, now time.Time, every time.Duration) bool {
	if r.LastAttempt.IsZero() {
		return true
	}
	next := r.LastAttempt.Add(every)
	if !r.RetryAt.IsZero() && r.RetryAt.Before(next) {
		next = r.RetryAt
	}
	return !now.Before(next)
}

// sitemapEvery is how long a sitemap is let be after a read.
func (e *Engine) sitemapEvery() time.Duration {
	return cmp.Or(e.cfg.SitemapEvery, clamp(e.cfg.Profile.Window, time.Hour, 24*time.Hour))
}
