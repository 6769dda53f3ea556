package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/meta"
)

// Account is the account of the list per host (spider status --json,
// "account"): what each host's budget allows, what the profiles promise
// and whether it fits, how current the mirror is. Field names are stable.
type Account struct {
	// Profiles are the promises weighed: those the spiders of the list
	// published ("spiders"), or, when none did, the config's fast and
	// slow profiles ("config").
	Profiles     []AccountProfile `json:"profiles"`
	ProfilesFrom string           `json:"profiles_from"`
	Hosts        []HostAccount    `json:"hosts"` // most lines first
	// HistoryError says why no host has a history: LIST.meta could not
	// be read (a spider held it longer than status waits).
	HistoryError string `json:"history_error,omitempty"`
}

// AccountProfile is one profile as the account weighs it.
type AccountProfile struct {
	Name        string  `json:"name"`
	WindowSec   float64 `json:"window_s"`
	ShortestSec float64 `json:"shortest_s"` // the bounds of a line's revisit interval
	LongestSec  float64 `json:"longest_s"`  // (claim.Profile.Intervals)
	MaxLevel    int     `json:"max_level"`  // -1: no limit
	StaleSec    float64 `json:"stale_s"`    // 0: no stale bound
}

// HostAccount is the account of one host.
type HostAccount struct {
	Host string `json:"host"`
	account.Lines
	Budget   account.Budget    `json:"budget"`
	Promises []account.Promise `json:"promises"`
	// What the profiles' spiders ask together, sharing the host's budget
	// (each line once per the shortest of their revisit intervals):
	// requests an hour, and how far over (0: fits).
	TogetherPerHour float64 `json:"together_per_hour"`
	TogetherOver    float64 `json:"together_over"`
	// MadePerHour are the requests an hour the spiders made lately: each
	// spider's latest sample of the last two hours in LIST.account.jsonl.
	MadePerHour float64 `json:"made_per_hour"`
	// History is from LIST.meta; null when the list has none.
	History *account.History `json:"history"`
}

// accountSample is about how many history records status reads: one in
// every lines/accountSample of them beyond that.
const accountSample = 20000

// accountProfiles returns the profiles to weigh: the latest status each
// profile's spiders published, else the config's fast and slow.
func accountProfiles(published []crawl.Status, cfg *Config) ([]claim.Profile, string, error) {
	ps := crawl.PublishedProfiles(published)
	if len(ps) > 0 {
		return ps, "spiders", nil
	}
	for _, name := range []string{"fast", "slow"} {
		s, err := configSettings(name, cfg)
		if err != nil {
			return nil, "", err
		}
		ps = append(ps, s.profile())
	}
	return ps, "config", nil
}

// configSettings resolves profile name from the defaults and cfg, as a
// spider started with no flags would.
func configSettings(name string, cfg *Config) (*Settings, error) {
	s, err := defaultSettings(name, cfg)
	if err != nil {
		return nil, err
	}
	s.applyConfig(cfg)
	s.SlowWindow = slowWindow(s, cfg)
	s.Longest = longest(s, false)
	s.Shortest = shortest(s, cfg, false)
	return s, nil
}

// spidersDelay returns the delay the spiders of the list wait between
// requests to a host and where that is known from: the smallest any
// spider published (the pace the host may see), else the config's, else
// the default.
func spidersDelay(published []crawl.Status, cfg *Config) (time.Duration, string) {
	var d time.Duration
	found := false
	for _, s := range published {
		if s.DelaySec != nil {
			sd := time.Duration(*s.DelaySec * float64(time.Second))
			if !found || sd < d {
				d, found = sd, true
			}
		}
	}
	if found {
		return d, "spiders"
	}
	s, err := configSettings("fast", cfg)
	if err != nil {
		return time.Second, "default"
	}
	if cfg.Delay != nil || cfg.Profile["fast"].Delay != nil {
		return s.Delay, "config"
	}
	return s.Delay, "default"
}

// accountOf completes the account from the tally of the list l: the
// budgets (the spiders' delay, raised by the Crawl-delay they published:
// LIST.hosts.d, or the database's table hosts, after the answer times
// their account samples give), the history (a sample of
// LIST.meta or of the table history) and this machine's account series.
func accountOf(ctx context.Context, l crawl.Store, t *account.Tally, ps []claim.Profile, from string, delay time.Duration, delayFrom string, lines int, now time.Time) *Account {
	a := &Account{ProfilesFrom: from, Hosts: []HostAccount{}}
	window := time.Duration(0)
	for _, p := range ps {
		shortest, _, longest := p.Intervals()
		a.Profiles = append(a.Profiles, AccountProfile{Name: p.Name, WindowSec: p.Window.Seconds(),
			ShortestSec: shortest.Seconds(), LongestSec: longest.Seconds(), MaxLevel: p.MaxLevel, StaleSec: p.Stale.Seconds()})
		if window == 0 || p.Window < window {
			window = p.Window
		}
	}
	every := max(1, (lines+accountSample-1)/accountSample)
	hs := account.NewHistories(window, now, every)
	err := historyOf(l, 10*time.Second).Sample(every, func(r *meta.Record) bool {
		hs.Add(r)
		return true
	})
	if err != nil {
		a.HistoryError = err.Error()
		hs = account.NewHistories(window, now, every)
	}
	hist := hs.Hosts()
	series, _ := account.ReadSeries(l.StatePath()+account.SeriesSuffix, now.Add(-2*time.Hour)) // a report: none if unreadable
	made := account.MadePerHour(series, now.Add(-2*time.Hour))
	answers := account.AnswerTimes(series, now.Add(-2*time.Hour))
	crawlDelay := crawlDelayOf(ctx, l)
	for name, hl := range t.Hosts() {
		b := account.NewBudget(delay, delayFrom, crawlDelay(name, now), answers[name])
		h := HostAccount{Host: name, Lines: hl, Budget: b, Promises: account.Promises(ps, hl, b)}
		h.TogetherPerHour = hl.Together
		h.TogetherOver = account.Together(hl.Together, b)
		h.MadePerHour = made[name]
		if r, ok := hist[name]; ok {
			h.History = &r
		}
		a.Hosts = append(a.Hosts, h)
	}
	sort.Slice(a.Hosts, func(i, j int) bool {
		if a.Hosts[i].Lines.Lines != a.Hosts[j].Lines.Lines {
			return a.Hosts[i].Lines.Lines > a.Hosts[j].Lines.Lines
		}
		return a.Hosts[i].Host < a.Hosts[j].Host
	})
	return a
}

// accountHosts is how many hosts the text output shows.
const accountHosts = 10

var delaySources = map[string]string{
	"spiders": "the delay the spiders published",
	"config":  "the config's delay (no spider published one)",
	"default": "the default delay (no spider published one, the config sets none)",
}

func printAccount(w io.Writer, a *Account) {
	if a == nil || len(a.Hosts) == 0 {
		return
	}
	fmt.Fprintf(w, "\naccount per host (profiles from the %s; budget from %s):\n", a.ProfilesFrom, delaySources[a.Hosts[0].Budget.DelayFrom])
	for i, h := range a.Hosts {
		if i == accountHosts {
			fmt.Fprintf(w, "  ... %d more hosts (--json lists them all)\n", len(a.Hosts)-i)
			break
		}
		printHostAccount(w, &h)
	}
	if a.HistoryError != "" {
		fmt.Fprintf(w, "  (no fetch history: %s)\n", a.HistoryError)
	}
}

func printHostAccount(w io.Writer, h *HostAccount) {
	b := h.Budget
	fmt.Fprintf(w, "%s: %s, %s; ", h.Host, account.Counted(h.Lines.Lines, "line", "lines"), account.Counted(h.Copies, "copy", "copies"))
	if b.Unlimited {
		fmt.Fprintln(w, "no budget (delay 0: not paced)")
	} else {
		fmt.Fprintf(w, "budget %s requests/h, %s/day (%s)\n", account.Count(b.PerHour), account.Count(b.PerDay), b.Why())
	}
	for _, p := range h.Promises {
		fmt.Fprintf(w, "  %s\n", p.Text(h.Host, b))
	}
	if !b.Unlimited {
		verdict := "fits"
		if h.TogetherOver > 0 {
			verdict = "does not fit by " + account.Percent(h.TogetherOver) + "; raise the rate (--delay), or lengthen --window or --shortest of a profile"
		}
		fmt.Fprintf(w, "  the profiles together: %s requests/h of %s/h: %s\n", account.Count(h.TogetherPerHour), account.Count(b.PerHour), verdict)
	}
	if h.MadePerHour > 0 {
		fmt.Fprintf(w, "  made lately: %s requests/h (the spiders' last samples)\n", account.Count(h.MadePerHour))
	}
	fmt.Fprintf(w, "  current: %.0f%% of the mirror estimated current", 100*h.Current)
	if h.Hinted > 0 {
		fmt.Fprintf(w, " (%s copies hinted changed)", account.Count(float64(h.Hinted)))
	}
	fmt.Fprintln(w)
	printAges(w, h.Ages)
	if r := h.History; r != nil {
		sample := ""
		if r.Sampled {
			sample = fmt.Sprintf("; a sample of 1 in %d records", r.Every)
		}
		if r.Changes > 0 {
			fmt.Fprintf(w, "  %.1f requests per change caught (%s requests, %s changes%s)\n", r.PerChange, account.Count(float64(r.Requests)), account.Count(float64(r.Changes)), sample)
		} else {
			fmt.Fprintf(w, "  no change caught yet (%s requests, %s revisits%s)\n", account.Count(float64(r.Requests)), account.Count(float64(r.Checks)), sample)
		}
		if r.Measured+r.Late+r.Waiting > 0 {
			fmt.Fprintf(w, "  announced pages: %d of %d reached the mirror within the fast window; %d late, %d waiting\n", r.InWindow, r.Measured, r.Late, r.Waiting)
		} else {
			fmt.Fprintln(w, "  announced pages: none yet (a hub announces a page it links anew or moves up, a sitemap one with a newer lastmod)")
		}
	}
}

// accountLevels is how many levels' ages the text output shows one by
// one; deeper ones share a line.
const accountLevels = 6

func printAges(w io.Writer, ages []account.LevelAge) {
	for i, la := range ages {
		if i == accountLevels && len(ages) > i+1 {
			rest := ages[i:]
			var copies int
			var oldest float64
			for _, r := range rest {
				copies += r.Copies
				oldest = max(oldest, r.MaxSec)
			}
			fmt.Fprintf(w, "  levels %d–%d: %s, age max %s (--json has each level)\n", la.Level, rest[len(rest)-1].Level,
				copiesWord(copies), account.Duration(oldest))
			return
		}
		fmt.Fprintf(w, "  level %d: %s, age median %s, 90%% %s, max %s\n", la.Level, copiesWord(la.Copies),
			account.Duration(la.MedianSec), account.Duration(la.P90Sec), account.Duration(la.MaxSec))
	}
}

func copiesWord(n int) string {
	if n == 1 {
		return "1 copy"
	}
	return account.Count(float64(n)) + " copies"
}
