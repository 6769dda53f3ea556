package crawl

import (
	"slices"
	"strings"
	"time"

	"github.com/spider-mirror/spider/list"
)

// The list marks a line hinted only if it has a copy older than the hint
// (list.Add.Hint), and a result recorded on a line sets its due afresh.
// So an announcement that reaches the list while another spider fetches
// the page is lost when that spider's fetch took the page before the
// change: the line had no copy to mark, or its mark was overwritten by
// the result. The spider that heard the announcement therefore keeps it
// and sends it again with each pass for a window of the spider's profile:
// once the other spider has recorded its copy, the hint marks it, and an
// announced page reaches the mirror within a window of its announcement
// all the same. A hint sent again is harmless: the list marks only a copy
// older than it, once.
//
// The hints are kept in memory: a spider that crashes forgets them, and
// the pages they named wait for their usual revisit (within the slow
// window).

// maxKeptHints bounds the hints kept (the newest are kept): a hub that
// announces thousands of pages a window costs no more than this many Adds
// a pass.
const maxKeptHints = 4096

// keptHints are the hinted Adds a spider sent lately, by URL. The run's
// loop owns them.
type keptHints struct {
	keep time.Duration // how long a hint is sent again
	adds map[string]list.Add
}

// note keeps the hinted Adds among adds sent at now, the hint truncated to
// the list's whole seconds: a copy taken later in the second the hint was
// heard is not marked again.
func (k *keptHints) note(adds []list.Add, now time.Time) {
	for _, a := range adds {
		if a.Hint.IsZero() || !a.Hint.After(now.Add(-k.keep)) {
			continue
		}
		if k.adds == nil {
			k.adds = map[string]list.Add{}
		}
		a.Hint = a.Hint.Truncate(time.Second)
		if old, ok := k.adds[a.URL]; ok && old.Hint.After(a.Hint) {
			a.Hint = old.Hint
		}
		a.Width = 0 // the line exists: nothing to reserve
		k.adds[a.URL] = a
	}
	if len(k.adds) > maxKeptHints {
		k.trim()
	}
}

// trim drops the oldest hints until maxKeptHints are left.
func (k *keptHints) trim() {
	all := make([]list.Add, 0, len(k.adds))
	for _, a := range k.adds {
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b list.Add) int { return a.Hint.Compare(b.Hint) })
	for _, a := range all[:len(all)-maxKeptHints] {
		delete(k.adds, a.URL)
	}
}

// again returns the kept hints to send with a pass at now, and forgets
// those older than the keep.
func (k *keptHints) again(now time.Time) []list.Add {
	var out []list.Add
	for u, a := range k.adds {
		if !a.Hint.After(now.Add(-k.keep)) {
			delete(k.adds, u)
			continue
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b list.Add) int { return strings.Compare(a.URL, b.URL) })
	return out
}

// fetching forgets the hint of a line this spider claimed to fetch now:
// its copy will be newer than the hint.
func (k *keptHints) fetching(url string) { delete(k.adds, url) }
