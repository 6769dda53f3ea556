package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
)

// TurnoverStatus is a start page whose latest links all changed between
// two polls of one spider (crawl.Turnover), with the spider and its
// shortest interval, the least time between its polls.
type TurnoverStatus struct {
	crawl.Turnover
	Spider      string  `json:"spider"`
	ShortestSec float64 `json:"shortest_s"`
}

// turnoversOf returns the turnovers spider published in cs.
func turnoversOf(spider string, cs *crawl.Status) []TurnoverStatus {
	shortest, _, _ := cs.ClaimProfile().Intervals()
	var out []TurnoverStatus
	for _, t := range cs.Turnovers {
		out = append(out, TurnoverStatus{Turnover: t, Spider: spider, ShortestSec: shortest.Seconds()})
	}
	return out
}

// sortTurnovers orders ts by start page, then spider.
func sortTurnovers(ts []TurnoverStatus) {
	slices.SortFunc(ts, func(a, b TurnoverStatus) int {
		return cmp.Or(cmp.Compare(a.URL, b.URL), cmp.Compare(a.Spider, b.Spider))
	})
}

// printTurnovers writes spider status's lines on the start pages whose
// list turned over between two polls, with the remedy.
func printTurnovers(w io.Writer, st *Status) {
	if len(st.Turnovers) == 0 {
		return
	}
	fmt.Fprintln(w, "start pages whose latest links all changed between two polls (since each spider started):")
	for i, t := range st.Turnovers {
		if i == 10 {
			fmt.Fprintf(w, "  ... (--json lists them all)\n")
			break
		}
		shortest := time.Duration(t.ShortestSec * float64(time.Second))
		polls := "polls"
		if t.Polls == 1 {
			polls = "poll"
		}
		fmt.Fprintf(w, "  %s  %d %s by %s (shortest %v), last %s\n", t.URL, t.Polls, polls, t.Spider, shortest, t.Last.Format(time.RFC3339))
	}
	fmt.Fprintln(w, "  pages they listed in between may be missed until a listing or the slow spider finds them;")
	fmt.Fprintln(w, "  a spider polls such a page again after half the time, no sooner than the host's pace allows")
	fmt.Fprintln(w, "  hint: a shorter --delay, if the host allows it, lets a start page be polled sooner where the")
	fmt.Fprintln(w, "  delay, not the host's Crawl-delay or its answer time, sets the pace (the account below shows them)")
}
