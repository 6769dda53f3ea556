package crawl

import (
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/hostgate"
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

// countingPicker is a pass's picker that tallies every line it is
// offered.
type countingPicker struct {
	list.Picker
	mu    sync.Mutex
	tally *account.Tally
	now   time.Time
}

func (c *countingPicker) Due(e *list.Entry) bool {
	c.mu.Lock()
	c.tally.Add(e)
	c.mu.Unlock()
	return c.Picker.Due(e)
}

// every is how often a pass counts: hourly, or once per window if that
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
	c.Pick = &countingPicker{Picker: c.Pick, tally: account.New([]claim.Profile{r.e.cfg.Profile}, now), now: now}
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
		ps := account.Promises([]claim.Profile{p}, l.Within, l.Lines, b)
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
				samples[i].Budget, samples[i].Promise = b.PerHour, ps[0].PerHour
			}
		}
	}
	r.sample(samples, cp.now)
}

// budget is host's budget as this spider sees it: its delay, raised by
// the host's Crawl-delay as this process or another spider read it.
func (e *Engine) budget(host string, now time.Time) account.Budget {
	crawlDelay := hostgate.CrawlDelay(e.list.Path()+".hosts.d", host, now)
	e.polite.mu.Lock()
	crawlDelay = max(crawlDelay, e.polite.crawl[host])
	e.polite.mu.Unlock()
	return account.NewBudget(e.cfg.Delay, "spiders", crawlDelay)
}

// sample appends the run's sample to the series and writes the page.
func (r *run) sample(hosts []account.HostSample, now time.Time) {
	e, a := r.e, &r.acct
	if a.sampled.IsZero() {
		a.sampled = e.obs.progress.started
	}
	counts := e.obs.fetchCounts()
	for i := range hosts {
		h := &hosts[i]
		h.Requests, h.SpanSec = counts[h.Host]-a.fetched[h.Host], now.Sub(a.sampled).Seconds()
	}
	a.fetched, a.sampled = counts, now
	path := e.list.Path() + account.SeriesSuffix
	s := account.Sample{At: now.UTC(), Spider: e.cfg.Spider, Profile: e.cfg.Profile.Name, Hosts: hosts}
	if err := account.AppendSeries(path, s); err != nil {
		e.log.Warn("account not kept over time", "err", err)
		return
	}
	series, err := account.ReadSeries(path, now.Add(-account.Keep))
	if err == nil {
		err = e.mirror.Write(mirrorindex.AccountPage, account.Page(series, now))
	}
	if err != nil {
		e.log.Warn("account page not written", "err", err)
	}
}
