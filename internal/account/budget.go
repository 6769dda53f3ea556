package account

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
)

// Budget is how many requests a host allows the spiders of a list, all
// spiders together (internal/hostgate spaces them): each request starts
// the delay after the previous one ended, the delay being the larger of
// the spiders' and the host's robots.txt Crawl-delay, so a request takes
// the delay and the host's answer time. With no answer time known yet
// (nothing fetched there), the budget is one request a delay: an upper
// bound.
type Budget struct {
	DelaySec       float64 `json:"delay_s"`        // the delay that binds: max(spiders', Crawl-delay)
	SpiderDelaySec float64 `json:"spider_delay_s"` // the spiders' own delay
	// DelayFrom says where the spiders' delay comes from: "spiders" (what
	// the running or last spiders published), "config" (the config
	// file), or "default" (neither said).
	DelayFrom     string  `json:"delay_from"`
	CrawlDelaySec float64 `json:"crawl_delay_s"` // robots.txt's, as the spiders published it (LIST.hosts.d, or the table hosts); 0 = none known
	AnswerSec     float64 `json:"answer_s"`      // the host's mean answer time, as the spiders saw it; 0 = not known
	Unlimited     bool    `json:"unlimited"`     // no delay at all: the host is not paced
	PerHour       float64 `json:"per_hour"`      // 0 when unlimited
	PerDay        float64 `json:"per_day"`
}

// NewBudget returns the budget of a host whose spiders wait delay
// (known from from), whose robots.txt asks crawlDelay and which answers
// in answer on average (0: not known).
func NewBudget(delay time.Duration, from string, crawlDelay, answer time.Duration) Budget {
	d := max(delay, crawlDelay)
	b := Budget{DelaySec: d.Seconds(), SpiderDelaySec: delay.Seconds(), DelayFrom: from, CrawlDelaySec: crawlDelay.Seconds(),
		AnswerSec: max(answer, 0).Seconds()}
	if d <= 0 {
		b.Unlimited = true
		return b
	}
	b.PerHour = float64(time.Hour) / float64(d+max(answer, 0))
	b.PerDay = 24 * b.PerHour
	return b
}

// Promise is what one profile's promise costs at one host: every one of
// its URLs visited once per Every, or, for the window, once per each
// line's revisit interval, which the change model sets between Shortest
// and Longest.
type Promise struct {
	Profile     string  `json:"profile"`
	Kind        string  `json:"kind"` // "window" (the profile's window) or "stale" (its stale bound)
	MaxLevel    int     `json:"max_level"`
	URLs        int     `json:"urls"`
	EverySec    float64 `json:"every_s"`
	ShortestSec float64 `json:"shortest_s"` // the bounds of a line's revisit interval
	LongestSec  float64 `json:"longest_s"`  // (both Every for the stale bound)
	// PerHour is what keeping the promise costs, in requests an hour:
	// for the window, a visit per line and revisit interval
	// (Lines.PerHour); WindowPerHour is URLs × 1h ÷ Every, the cost
	// were every interval the window (as before the model knows a page).
	PerHour       float64 `json:"per_hour"`
	WindowPerHour float64 `json:"window_per_hour"`
	Fits          bool    `json:"fits"`
	// Over is how far PerHour exceeds the budget, as a share of the
	// budget (0.17: 17% more than the host allows); 0 when it fits.
	Over float64 `json:"over"`
}

// Promises returns what each profile's promises cost at a host whose
// lines are l (a Tally's, for the same profiles in the same order) under
// budget b: the window over the lines within the level limit, and the
// stale bound over all lines.
func Promises(profiles []claim.Profile, l Lines, b Budget) []Promise {
	var out []Promise
	for i, p := range profiles {
		if p.Window > 0 && i < len(l.Within) && i < len(l.PerHour) {
			shortest, window, longest := p.Intervals()
			pr := Promise{Profile: p.Name, Kind: "window", MaxLevel: p.MaxLevel, URLs: l.Within[i],
				EverySec: window.Seconds(), ShortestSec: shortest.Seconds(), LongestSec: longest.Seconds(), PerHour: l.PerHour[i]}
			out = append(out, pr.judge(b))
		}
		if p.Stale > 0 {
			pr := Promise{Profile: p.Name, Kind: "stale", MaxLevel: -1, URLs: l.Lines,
				EverySec: p.Stale.Seconds(), ShortestSec: p.Stale.Seconds(), LongestSec: p.Stale.Seconds()}
			pr.PerHour = pr.everyURL()
			out = append(out, pr.judge(b))
		}
	}
	return out
}

// everyURL is what a visit per URL and Every costs, in requests an hour.
func (p Promise) everyURL() float64 { return float64(p.URLs) * 3600 / p.EverySec }

// judge fills in the window's figure and the verdict under b.
func (p Promise) judge(b Budget) Promise {
	p.WindowPerHour, p.Fits = p.everyURL(), true
	if !b.Unlimited && p.PerHour > b.PerHour {
		p.Fits, p.Over = false, p.PerHour/b.PerHour-1
	}
	return p
}

// Together returns how far what the profiles' spiders ask together
// (Lines.Together, in requests an hour) exceeds the budget, 0 when it
// fits.
func Together(perHour float64, b Budget) (over float64) {
	if !b.Unlimited && perHour > b.PerHour {
		over = perHour/b.PerHour - 1
	}
	return over
}

// Text says a promise and its verdict in one line, with the arithmetic
// and, when it does not fit, the options:
//
//	fast promises 4,210 URLs (level ≤ 3) every 1h = 4,210 requests/h; host example.org allows 3,600/h (delay 1s): does not fit by 17%; raise the rate (--delay), lower --max-level, or lengthen --window
//
// Once the change model gives pages other intervals than the window, the
// cost is what their intervals ask, and the window's figure follows:
//
//	fast promises 4,210 URLs (level ≤ 3) every 1h, or as the change model expects from 30m to 24h = 1,310 requests/h (every 1h each: 4,210); host example.org allows 3,600/h (delay 1s): fits (36% of the budget)
func (p Promise) Text(host string, b Budget) string {
	var s strings.Builder
	what := ""
	if p.Kind == "stale" {
		what = " (stale bound)"
	}
	fmt.Fprintf(&s, "%s%s promises %s", p.Profile, what, Counted(p.URLs, "URL", "URLs"))
	if p.MaxLevel >= 0 {
		fmt.Fprintf(&s, " (level ≤ %d)", p.MaxLevel)
	}
	if Count(p.PerHour) == Count(p.WindowPerHour) {
		fmt.Fprintf(&s, " every %s = %s requests/h", Duration(p.EverySec), Count(p.PerHour))
	} else {
		fmt.Fprintf(&s, " every %s, or as the change model expects from %s to %s = %s requests/h (every %s each: %s)",
			Duration(p.EverySec), Duration(p.ShortestSec), Duration(p.LongestSec), Count(p.PerHour), Duration(p.EverySec), Count(p.WindowPerHour))
	}
	fmt.Fprintf(&s, "; host %s %s", host, b.Text())
	switch {
	case p.Fits:
		s.WriteString(": fits")
		if !b.Unlimited {
			fmt.Fprintf(&s, " (%d%% of the budget)", int(math.Round(100*p.PerHour/b.PerHour)))
		}
	case p.Kind == "stale":
		fmt.Fprintf(&s, ": does not fit by %s; raise the rate (--delay) or lengthen --stale", Percent(p.Over))
	default:
		fmt.Fprintf(&s, ": does not fit by %s; raise the rate (--delay)", Percent(p.Over))
		if p.MaxLevel > 0 {
			s.WriteString(", lower --max-level,")
		}
		s.WriteString(" or lengthen --window")
		if p.ShortestSec < p.EverySec {
			s.WriteString(" or --shortest") // a page seen to change often is polled every shortest
		}
	}
	return s.String()
}

// Text says the budget: "allows 3,600/h (delay 1s)", "allows 3,000/h
// (delay 1s after answers of 200ms)".
func (b Budget) Text() string {
	if b.Unlimited {
		return "is not paced (delay 0: no budget)"
	}
	return fmt.Sprintf("allows %s/h (%s)", Count(b.PerHour), b.Why())
}

// Why says which delay binds, and the answer time it follows: "delay 1s",
// "robots.txt Crawl-delay 5s", "delay 1s after answers of 200ms".
func (b Budget) Why() string {
	why := "delay " + Duration(b.DelaySec)
	if b.CrawlDelaySec > b.SpiderDelaySec {
		why = "robots.txt Crawl-delay " + Duration(b.CrawlDelaySec)
	}
	if b.AnswerSec > 0 {
		why += " after answers of " + Duration(b.AnswerSec)
	}
	return why
}

// Counted writes n things, named one or many as n says: 1 URL, 4,210 URLs.
func Counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(float64(n)) + " " + many
}

// Count writes n rounded, with thousands separated: 4,210.
func Count(n float64) string {
	s := strconv.FormatInt(int64(math.Round(n)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Percent writes a share as a whole percentage, at least 1%: 17%.
func Percent(share float64) string {
	return fmt.Sprintf("%d%%", max(int(math.Round(100*share)), 1))
}

// Duration writes seconds as a short duration, to the microsecond under
// a millisecond, the millisecond under a second, a tenth of a second
// under a minute, a second under an hour, a minute under a day, an hour
// beyond: 561µs, 29ms, 7.5s, 1m30s, 2h43m, 336h.
func Duration(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		d = d.Round(time.Second / 10)
	case d < time.Hour:
		d = d.Round(time.Second)
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
	default:
		d = d.Round(time.Hour)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
