package crawl

import (
	"time"

	"github.com/spider-mirror/spider/internal/claim"
)

// Status is what a spider adds to the status it publishes after each pass
// (list.SpiderStatus.Extra): its profile, so that spider status can tell
// what is due for it, and its running totals.
type Status struct {
	Profile   string  `json:"profile"`
	WindowSec float64 `json:"window_s"`
	// LongestSec is the profile's longest revisit interval (claim.Profile.Longest).
	LongestSec float64 `json:"longest_s,omitempty"`
	// ShortestSec is the profile's shortest revisit interval (claim.Profile.Shortest).
	ShortestSec float64 `json:"shortest_s,omitempty"`
	MaxLevel    int     `json:"max_level"`
	StaleSec    float64 `json:"stale_s"`
	Batch       int     `json:"batch"`
	// DelaySec is the spider's delay between requests to a host (before
	// any Crawl-delay): its share of the host's budget (spider status's
	// account). Absent from the status of a spider that did not publish
	// it, which is not the same as a delay of 0.
	DelaySec  *float64 `json:"delay_s,omitempty"`
	Fetched   int      `json:"fetched"`
	Unchanged int      `json:"unchanged"`
	Errors    int      `json:"errors"`
	Archived  int      `json:"archived"`
	InFlight  int      `json:"in_flight"`
	// Lines robots.txt forbade, recorded disallowed without a request.
	Disallowed int `json:"disallowed"`
	// Since this spider started: pages it found gone in the last 24 hours,
	// its 5 slowest hosts, its 5 most frequent kinds of failure.
	ArchivedLastDay []Archival   `json:"archived_last_day"`
	SlowestHosts    []HostTime   `json:"slowest_hosts"`
	FrequentErrors  []ErrorCount `json:"frequent_errors"`
	// Since this spider started: distinct links its defences cut, by
	// reason, and the URL patterns it capped (traps.go).
	Filtered       map[string]int  `json:"filtered,omitempty"`
	CappedPatterns []CappedPattern `json:"capped_patterns,omitempty"`
	// Since this spider started: its reads of each host's sitemaps.
	Sitemaps []SitemapHost `json:"sitemaps,omitempty"`
	// Since this spider started: the start pages whose latest links all
	// changed between two of its polls within twice its shortest
	// interval, so that pages listed in between may have been missed
	// (revisit.go's announce); by URL.
	Turnovers []Turnover `json:"turnovers,omitempty"`
}

// Turnover is a start page whose latest links all changed between two
// polls: how many polls found it so, and the latest.
type Turnover struct {
	URL   string    `json:"url"`
	Polls int       `json:"polls"`
	Last  time.Time `json:"last"`
}

// profileStatus returns a Status carrying p, for ClaimProfile to give back.
func profileStatus(p claim.Profile) Status {
	return Status{Profile: p.Name, WindowSec: p.Window.Seconds(), LongestSec: p.Longest.Seconds(), ShortestSec: p.Shortest.Seconds(),
		MaxLevel: p.MaxLevel, StaleSec: p.Stale.Seconds(), Batch: p.Batch}
}

// ClaimProfile returns the profile the status was published with.
func (s *Status) ClaimProfile() claim.Profile {
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	return claim.Profile{Name: s.Profile, Window: sec(s.WindowSec), Longest: sec(s.LongestSec), Shortest: sec(s.ShortestSec),
		MaxLevel: s.MaxLevel, Stale: sec(s.StaleSec), Batch: s.Batch}
}
