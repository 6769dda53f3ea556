package crawl

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
)

// The run's account (internal/account) comes from the passes, not from
// reading the list again: the run's first pass, and then one pass every
// accountEvery, tallies every line it offers its picker. That is every
// line but those other spiders hold claimed at that moment (at most their
// batches), which the account leaves out. After such a pass the run
//
//   - says in its log, once per host and promise, when its profile's
//     promise costs more requests than the host's budget allows, with the
//     arithmetic and the options (account.Promise.Text);
//   - appends a sample to LIST.account.jsonl and writes the mirror's
//     spider-account.html from the samples of the last days.
//
// A counting pass serialises the tally's updates behind a mutex, which
// costs the pass part of its parallel reading once an accountEvery.

// accountant is the run's side of the account. The loop goroutine owns
// it, as it owns the run.
type accountant struct {
	last    time.Time       // when the last counting pass started; zero: none yet
	said    map[string]bool // host + promise kind already logged
	fetched map[string]int  // this spider's requests per host at the last sample
	sampled time.Time       // when the last sample was taken, or the run started
}

// policyPicker is a pass's picker whose policy is also data (Profile,
// Backlogged, RefreshesEarly, RefreshesUnpaced): what a store that selects its candidates in
// SQL (pglist.Profiled) needs. claim.Picker and aheadPicker are.
type policyPicker interface {
	list.Picker
	Profile() claim.Profile
	Backlogged() bool
	RefreshesEarly() bool
	RefreshesUnpaced() bool
}

// countingPicker is a pass's picker that tallies every line it is
// offered. It forwards its base picker's policy, and the lines it prefers
// if any (fetched ahead), so that a database store claims with it as with
// the base.
type countingPicker struct {
	policyPicker
	mu       sync.Mutex
	profiles []claim.Profile // the list's, this spider's first (listProfiles)
	tally    *account.Tally
	now      time.Time
}

// Preferred forwards the base picker's preferred lines (aheadPicker).
func (c *countingPicker) Preferred() []string {
	if a, ok := c.policyPicker.(*aheadPicker); ok {
		return a.Preferred()
	}
	return nil
}

// recount tallies every line of l afresh, from a read of its own, for a
// store that offers a pass's picker only its candidates (a database): a
// tally of those would miss the lines that are not due.
func (c *countingPicker) recount(ctx context.Context, l Store) error {
	t := account.New(c.profiles, c.now)
	err := l.Scan(ctx, func(e *list.Entry) error {
		t.Add(e)
		return nil
	})
	if err == nil {
		c.mu.Lock()
		c.tally = t
		c.mu.Unlock()
	}
	return err
}

// offersEveryLine reports whether l's passes ask the picker about every
// line of the list: the file does.
func offersEveryLine(l Store) bool {
	_, file := l.(*list.List)
	return file
}

func (c *countingPicker) Due(e *list.Entry) bool {
	c.mu.Lock()
	c.tally.Add(e)
	c.mu.Unlock()
	return c.policyPicker.Due(e)
}

// accountEvery is how often a pass counts: hourly, or once per window if that
// is shorter, and at most once a second.
func (e *Engine) accountEvery() time.Duration {
	return clamp(e.cfg.Profile.Window, time.Second, time.Hour)
}

// count makes c's pass a counting one if one is due.
func (r *run) count(c *list.Cycle, now time.Time) {
	a := &r.acct
	if c.Pick == nil || !a.last.IsZero() && now.Sub(a.last) < r.e.accountEvery() {
		return
	}
	a.last = now
	base, ok := c.Pick.(policyPicker)
	if !ok {
		return
	}
	c.Pick = &countingPicker{policyPicker: base, now: now} // its pass weighs it (weigh)
}

// weigh starts c's tally with profiles ps: the pass does, off the loop's
// goroutine, with the list's profiles (listProfiles), before it offers c
// any line.
func (c *countingPicker) weigh(ps []claim.Profile) {
	c.profiles, c.tally = ps, account.New(ps, c.now)
}

// listProfiles returns the profiles of the spiders that share the list,
// this spider's first, then the latest each other profile's spiders
// published: the account weighs a line by all of them, as spider status
// does, so that every spider's samples estimate the share current alike
// (a page with no model is taken to change once per the shortest window
// of them). If the statuses cannot be read, this spider's alone.
func (e *Engine) listProfiles(ctx context.Context) []claim.Profile {
	sts, err := e.list.Statuses(ctx)
	if err != nil {
		e.log.Warn("the other spiders' profiles not read; the account weighs the lines by this spider's alone", "err", err)
		return []claim.Profile{e.cfg.Profile}
	}
	var published []Status
	for _, sp := range sts {
		var cs Status
		if json.Unmarshal(sp.Extra, &cs) == nil && cs.WindowSec > 0 {
			published = append(published, cs)
		}
	}
	return PublishedProfiles(published, e.cfg.Profile)
}

// PublishedProfiles returns the profiles the account weighs the lines of
// a list by: those given (a spider's own, which no status replaces), then
// each other profile the spiders published, in the order first seen, as
// the latest status of its name says.
func PublishedProfiles(published []Status, own ...claim.Profile) []claim.Profile {
	ps := append([]claim.Profile(nil), own...)
	at := map[string]int{}
	for i, p := range own {
		at[p.Name] = -1 - i // kept
	}
	for _, s := range published {
		p := s.ClaimProfile()
		switch i, ok := at[p.Name]; {
		case !ok:
			at[p.Name] = len(ps)
			ps = append(ps, p)
		case i >= 0:
			ps[i] = p
		}
	}
	return ps
}

// counted applies a counting pass's tally: the log, the sample, the page.
func (r *run) counted(c *list.Cycle) {
	cp, ok := c.Pick.(*countingPicker)
	if !ok {
		return
	}
	e, a := r.e, &r.acct
	hosts := cp.tally.Hosts()
	samples := account.HostSamples(hosts)
	p := e.cfg.Profile
	for name, l := range hosts {
		b := e.budget(name, cp.now)
		ps := account.Promises([]claim.Profile{p}, l, b) // this spider's: the first of the tally's
		for _, pr := range ps {
			if !pr.Fits && !a.said[name+" "+pr.Kind] {
				if a.said == nil {
					a.said = map[string]bool{}
				}
				a.said[name+" "+pr.Kind] = true
				e.log.Warn(pr.Text(name, b), "host", name, "urls", pr.URLs, "requests_per_hour", int(pr.PerHour),
					"budget_per_hour", int(b.PerHour))
			}
		}
		for i := range samples {
			if samples[i].Host == name {
				samples[i].Budget, samples[i].Promise, samples[i].Together = b.PerHour, ps[0].PerHour, l.Together
			}
		}
	}
	r.sample(samples, cp.now)
}

// budget is host's budget as this spider sees it: its delay, raised by
// the host's Crawl-delay as this process or another spider read it (the
// run's gate: LIST.hosts.d, or the database's table for a list there),
// after the host's answers as this spider timed them.
func (e *Engine) budget(host string, now time.Time) account.Budget {
	crawlDelay := max(e.polite.sharedCrawlDelay(host, now), e.polite.crawlDelay(host))
	return account.NewBudget(e.cfg.Delay, "spiders", crawlDelay, e.obs.answer(host))
}

// sample takes the run's sample and hands it to the keeper, which
// appends it to the series and writes the page.
func (r *run) sample(hosts []account.HostSample, now time.Time) {
	e, a := r.e, &r.acct
	if a.sampled.IsZero() {
		a.sampled = e.obs.progress.started
	}
	counts := e.obs.fetchCounts()
	for i := range hosts {
		h := &hosts[i]
		h.Requests, h.SpanSec = counts[h.Host]-a.fetched[h.Host], now.Sub(a.sampled).Seconds()
		h.AnswerSec = e.obs.answer(h.Host).Seconds()
	}
	a.fetched, a.sampled = counts, now
	r.samples.keep(account.Sample{At: now.UTC(), Spider: e.cfg.Spider, Profile: e.cfg.Profile.Name, Hosts: hosts})
}

// sampleKeeper writes the account's samples beside the loop, which hands
// them over (keep) and does not wait for the files: its goroutine
// (start) appends each to the series and writes the mirror's page from
// the series, and the samples still waiting when it stops.
type sampleKeeper struct {
	e       *Engine
	kick    chan struct{}
	mu      sync.Mutex
	waiting []account.Sample
}

// keep hands s to the keeper's goroutine.
func (k *sampleKeeper) keep(s account.Sample) {
	k.mu.Lock()
	k.waiting = append(k.waiting, s)
	k.mu.Unlock()
	select {
	case k.kick <- struct{}{}:
	default: // a write is due already: it takes s too
	}
}

// start runs the keeper's goroutine; stop writes the samples left and
// ends it.
func (k *sampleKeeper) start() (stop func()) {
	k.kick = make(chan struct{}, 1)
	end := beside(k.kick, k.writeWaiting)
	return func() {
		end()
		k.writeWaiting()
	}
}

// writeWaiting writes the samples waiting, oldest first.
func (k *sampleKeeper) writeWaiting() {
	for {
		k.mu.Lock()
		if len(k.waiting) == 0 {
			k.mu.Unlock()
			return
		}
		s := k.waiting[0]
		k.waiting = k.waiting[1:]
		k.mu.Unlock()
		k.write(s)
	}
}

// write appends s to the series and writes the page.
func (k *sampleKeeper) write(s account.Sample) {
	e := k.e
	path := e.list.StatePath() + account.SeriesSuffix
	if err := account.AppendSeries(path, s); err != nil {
		e.log.Warn("account not kept over time", "err", err)
		return
	}
	series, err := account.ReadSeries(path, s.At.Add(-account.Keep))
	if err == nil {
		err = e.mirror.Write(mirrorindex.AccountPage, account.Page(series, s.At))
	}
	if err != nil {
		e.log.Warn("account page not written", "err", err)
	}
}
