package crawl

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/change"
)

// navigation holds each host's navigation (change.Nav), for the prior of
// pages visited once: from its start page's links, when this spider visits
// the start page (announce) or reads its history with a pass (records);
// and the start pages whose list was seen to turn over between two polls,
// which the run's log names once and the spider's status counts.
type navigation struct {
	mu       sync.Mutex
	byHost   map[string]change.Nav
	turnover map[string]*Turnover
	warned   map[string]bool // start pages turnedOver reported
}

// turnedOver notes that the list of the start page at url turned over
// between two polls, the later at now, which came as soon as the spider
// may poll (soonest) or not, and reports whether it is the first such
// poll this run that came as soon as it may: a list that turns over
// faster than the spider may follow it.
func (n *navigation) turnedOver(url string, now time.Time, soonest bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	t := n.turnover[url]
	if t == nil {
		if n.turnover == nil {
			n.turnover = make(map[string]*Turnover)
		}
		t = &Turnover{URL: url}
		n.turnover[url] = t
	}
	t.Polls, t.Last = t.Polls+1, now
	if !soonest || n.warned[url] {
		return false
	}
	if n.warned == nil {
		n.warned = make(map[string]bool)
	}
	n.warned[url] = true
	return true
}

// turnovers returns what turnedOver noted, by URL.
func (n *navigation) turnovers() []Turnover {
	n.mu.Lock()
	defer n.mu.Unlock()
	return sortedCopies(n.turnover, func(a, b Turnover) int { return strings.Compare(a.URL, b.URL) })
}

// sortedCopies returns copies of the values of m, sorted by cmp.
func sortedCopies[K comparable, V any](m map[K]*V, cmp func(a, b V) int) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, cmp)
	return out
}

// set takes the links of the start page at url, as change.Links encoded
// them, for its host's navigation; empty links change nothing.
func (n *navigation) set(url, links string) {
	nav := change.NavOf(url, links)
	if !nav.Known() {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byHost == nil {
		n.byHost = make(map[string]change.Nav)
	}
	n.byHost[hostOf(url)] = nav
}

// of returns the navigation of host; the zero Nav if none is known.
func (n *navigation) of(host string) change.Nav {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.byHost[host]
}
