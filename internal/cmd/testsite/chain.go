package main

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// chain times the site's chain of index pages (/forum/, /forum/?page=2,
// ...; on the articles shape the archive, /archive/, /archive/?page=2, ...),
// each linked only from the one before, which a first mirror must
// fetch one after the other: how long the site took to answer each, and
// how long the crawler took from one answer to asking for the next page.
// The second is what a crawler adds to the crawl of a deep site, so
// scripts/bench-crawl prints it for each tool. A chain is not safe for
// concurrent use; the counter that holds it guards it.
type chain struct {
	pages map[int]span // index page number → its first answer 200
}

type span struct{ start, end time.Time }

// add notes a request answered at end.
func (c *chain) add(r sitetest.Request, end time.Time) {
	n, ok := indexPage(r.Path)
	if !ok || r.Status != http.StatusOK {
		return
	}
	if _, seen := c.pages[n]; !seen {
		c.pages[n] = span{end.Add(-r.Took), end}
	}
}

// indexPage returns the number of the page of the chain uri asks for: the
// forum's index or the archive (a site has one of them).
func indexPage(uri string) (int, bool) {
	for _, dir := range []string{"/forum/", "/archive/"} {
		if uri == dir {
			return 1, true
		}
		rest, ok := strings.CutPrefix(uri, dir+"?page=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 2 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// String is the line printed at exit, "" if fewer than two index pages in
// a row from the first were answered.
func (c *chain) String() string {
	var answer, gap []time.Duration
	for n := 1; ; n++ {
		p, ok := c.pages[n]
		if !ok {
			break
		}
		answer = append(answer, p.end.Sub(p.start))
		if q, ok := c.pages[n+1]; ok {
			gap = append(gap, q.start.Sub(p.end))
		}
	}
	if len(gap) == 0 {
		return ""
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	am, amed := meanMedian(answer)
	gm, gmed := meanMedian(gap)
	return fmt.Sprintf("chain: %d index pages; each answered in %.2f ms on average (median %.2f); from one answered to the next asked for, %.2f ms on average (median %.2f)",
		len(answer), ms(am), ms(amed), ms(gm), ms(gmed))
}

func meanMedian(ds []time.Duration) (mean, median time.Duration) {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return sum / time.Duration(len(ds)), s[len(s)/2]
}
