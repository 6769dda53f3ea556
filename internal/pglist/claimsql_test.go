package pglist

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
)

// The translation of a profile: which classes are queried, at which
// levels, with which cut-offs.
func TestCandQueries(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	slow := claim.Profile{Window: day, Longest: 7 * day, MaxLevel: -1, Stale: 14 * day, Batch: 50}
	fast := claim.Profile{Window: time.Hour, Shortest: 10 * time.Minute, MaxLevel: 1, Batch: 10}
	noModel := claim.Profile{Window: time.Hour, MaxLevel: 3, Stale: 30 * time.Minute, Batch: 10}
	cases := []struct {
		name    string
		p       claim.Profile
		backlog bool
		levels  []int
		want    []string // class: arguments after the SQL
	}{
		{"slow", slow, false, []int{0, 1, 2, 5}, []string{
			// First visits that waited past the stale bound, at every level.
			"waited 0: [" + fmt.Sprint(now.Add(-14*day)) + " 7]",
			"new 1: [" + fmt.Sprint(now) + " 7]", // hinted: at once
			// A start page due is as urgent as a line never visited; its
			// images and style sheets are refreshes like any other.
			"plain 1 (pages): [[0] 7 " + fmt.Sprint(now.Add(-day)) + "]",
			"model-due 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now) + "]", // no floor: the crawl may poll sooner than shortest
			"model-age 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-7*day)) + "]",
			// Copies past the stale bound after every first visit.
			"stale 2: [" + fmt.Sprint(now.Add(-14*day)) + " 7]",
			"plain 3 (no start pages): [[0 1 2 5] 7 " + fmt.Sprint(now.Add(-day)) + "]",
			"model-due 3 (no start pages): [[0 1 2 5] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-day)) + "]",
			"model-age 3 (no start pages): [[0 1 2 5] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-7*day)) + "]",
		}},
		{"slow backlog", slow, true, []int{0, 1, 2}, []string{
			"waited 0: [" + fmt.Sprint(now.Add(-14*day)) + " 7]",
			"new 1: [" + fmt.Sprint(now) + " 7]", // hinted: at once
			"plain 1 (pages): [[0] 7 " + fmt.Sprint(now.Add(-day)) + "]",
			"model-due 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now) + "]", // no floor: the crawl may poll sooner than shortest
			"model-age 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-7*day)) + "]",
			"stale 2: [" + fmt.Sprint(now.Add(-14*day)) + " 7]",
		}},
		{"fast", fast, false, []int{0, 1, 2, 3}, []string{
			"new 1: [" + fmt.Sprint(now) + " 7 1]", // hinted: at once
			"plain 1 (pages): [[0] 7 " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"model-due 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now) + "]", // no floor: the crawl may poll sooner than shortest
			"model-age 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"plain 3 (no start pages): [[0 1] 7 " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"model-due 3 (no start pages): [[0 1] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-10*time.Minute)) + "]",
			"model-age 3 (no start pages): [[0 1] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-time.Hour)) + "]",
		}},
		{"fast, only deep levels", fast, false, []int{2, 3}, []string{
			"new 1: [" + fmt.Sprint(now) + " 7 1]", // hinted: at once
		}},
		{"fast backlog without start pages", fast, true, []int{1, 2}, []string{
			"new 1: [" + fmt.Sprint(now) + " 7 1]", // hinted: at once
		}},
		// A stale bound shorter than the window lifts longest to the window.
		{"stale below window", noModel, false, []int{0}, []string{
			"waited 0: [" + fmt.Sprint(now.Add(-30*time.Minute)) + " 7]",
			"new 1: [" + fmt.Sprint(now) + " 7 3]",
			"plain 1 (pages): [[0] 7 " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"model-due 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now) + "]", // no floor: the crawl may poll sooner than shortest
			"model-age 1 (pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"stale 2: [" + fmt.Sprint(now.Add(-30*time.Minute)) + " 7]",
			"plain 3 (no start pages): [[0] 7 " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"model-due 3 (no start pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-time.Hour)) + "]",
			"model-age 3 (no start pages): [[0] 7 " + fmt.Sprint(now) + " " + fmt.Sprint(now.Add(-time.Hour)) + "]",
		}},
	}
	for _, tc := range cases {
		qs := candQueries(claimSpec{p: tc.p, now: now.In(time.FixedZone("x", 3600)), backlog: tc.backlog}, tc.levels, 7)
		var got []string
		for _, q := range qs {
			got = append(got, fmt.Sprintf("%s %d%s: %v", q.class, q.tier, only(q.sql), q.args))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// only names the lines a refresh query keeps: the start pages (their
// tier), all but the start pages (the other refreshes), or all.
func only(sql string) string {
	switch {
	case strings.Contains(sql, "AND NOT "+startPage):
		return " (no start pages)"
	case strings.Contains(sql, "AND "+startPage):
		return " (pages)"
	}
	return ""
}
