// Package change estimates how often a page changes and says when it is
// next worth a visit, from the visits that could tell whether it changed
// since the one before. It is pure: a function of the history and the
// clock.
//
// The estimator is Cho and Garcia-Molina's maximum-likelihood estimate of
// a Poisson change rate from "changed since the last visit" at irregular
// intervals ("Estimating frequency of change", ACM TOIT 2003): the rate λ
// that solves
//
//	Σ over visits that found a change   t/(e^(λt) − 1)  =  Σ over visits that did not   t
//
// where t is the time since the visit before. A page never seen to change
// is taken to change half as often as once in the time watched; a page
// seen to change at every visit, as often as Cho's estimator for regular
// visits says (log(2n+1) changes per mean interval). Revisits are spread
// around the mean time between changes with an exponential jitter, as the
// seed study revisited on a Poisson process: the estimate stays unbiased
// by the visiting pattern and the load stays smooth.
package change

import (
	"hash/fnv"
	"math"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
)

// Keep is how many visits a record keeps: enough to follow a page whose
// rate of change changes, few enough to keep a record small.
const Keep = 32

// Observe adds to rec a visit made after the visit before, which found a
// change or not.
func Observe(rec meta.Record, after time.Duration, changed bool) meta.Record {
	if after <= 0 {
		return rec
	}
	s := uint32(min(after/time.Second, math.MaxUint32))
	rec.Visits = append(rec.Visits, meta.Visit{After: max(s, 1), Changed: changed})
	if n := len(rec.Visits); n > Keep {
		rec.Visits = append([]meta.Visit(nil), rec.Visits[n-Keep:]...)
	}
	rec.Checks++
	if changed {
		rec.Changes++
	}
	return rec
}

// Heard counts in rec a visit that found the change a hub or a sitemap
// announced (meta.Record.Announced) as a change caught (Checks, Changes),
// but leaves it out of the model: an announced change reaches the mirror
// through its announcement, and revisits are for the changes no page
// announces. A forum topic that every reply bumps to the top of its
// forum's index is then not also polled as if it changed every hour: the
// visits its announcements bring do not count, the revisits that find it
// unchanged do. The visit after it is observed from it (Observe's after),
// so the time before it, which held the announced change, is not taken
// as time watched without a change either.
func Heard(rec meta.Record) meta.Record {
	rec.Checks++
	rec.Changes++
	return rec
}

// Rate returns the estimated rate of change, in changes per second; 0
// without visits.
func Rate(visits []meta.Visit) float64 {
	var changed, unchanged []float64
	var total float64
	for _, v := range visits {
		t := float64(v.After)
		total += t
		if v.Changed {
			changed = append(changed, t)
		} else {
			unchanged = append(unchanged, t)
		}
	}
	switch {
	case len(visits) == 0:
		return 0
	case len(changed) == 0:
		return 0.5 / total
	case len(unchanged) == 0:
		n := float64(len(visits))
		return math.Log(2*n+1) / (total / n)
	}
	var watched float64
	for _, t := range unchanged {
		watched += t
	}
	// f(λ) = Σ t/(e^(λt)−1) − watched falls from +∞ to −watched as λ
	// grows: bisect in log space between a rate of once in a thousand
	// times all the time watched and a thousand times per shortest visit.
	f := func(l float64) float64 {
		var s float64
		for _, t := range changed {
			s += t / math.Expm1(l*t)
		}
		return s - watched
	}
	lo, hi := math.Log(1e-3/total), math.Log(1e3/minOf(changed))
	for range 60 {
		mid := (lo + hi) / 2
		if f(math.Exp(mid)) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

func minOf(ts []float64) float64 {
	m := ts[0]
	for _, t := range ts[1:] {
		m = min(m, t)
	}
	return m
}

// Interval returns the estimated mean time between changes, or prior for
// a page with no visits yet. It is at least a second and at most ten
// years.
func Interval(visits []meta.Visit, prior time.Duration) time.Duration {
	r := Rate(visits)
	if r <= 0 {
		return prior
	}
	const most = 10 * 365 * 24 * time.Hour
	s := 1 / r
	if s >= most.Seconds() {
		return most
	}
	return max(time.Duration(s*float64(time.Second)), time.Second)
}

// Known reports whether visits tell more of how often a page changes than
// prior, the mean presumed with no visits, does: one of them saw a change,
// or they watched the page unchanged long enough that "half as often as
// once in the time watched" is prior or longer. Visits a few seconds apart
// that saw no change (a new page announced by one hub after another) are
// no evidence that it changes every few seconds; a page they do not tell
// of is best scheduled as one never revisited, else it is polled again and
// again while the time watched doubles.
func Known(visits []meta.Visit, prior time.Duration) bool {
	var watched time.Duration
	for _, v := range visits {
		if v.Changed {
			return true
		}
		watched += time.Duration(v.After) * time.Second
	}
	return len(visits) > 0 && 2*watched >= prior
}

// Next returns when the page at url, visited at at, is next worth a visit:
// after its mean time between changes (Interval), the part of it beyond
// floor (the profile's shortest revisit interval) jittered by a factor of
// 0.5 plus half an exponential draw (mean 1, at least 0.5). The draw is a
// function of url and at, so the schedule is reproducible. A page that
// changes more often than every floor (a home page, a "latest" list) is
// due at floor exactly: it is polled as often as the user allows, and a
// jittered poll could come too late for what it announces to still be
// listed; it changes at nearly every visit, so no spread is needed to
// learn how often. The claim policy bounds the result by the profile's
// windows (internal/claim).
func Next(url string, at time.Time, visits []meta.Visit, prior, floor time.Duration) time.Time {
	above := max(Interval(visits, prior)-floor, 0)
	return at.Add(floor + time.Duration(float64(above)*Jitter(url, at)))
}

// Jitter returns 0.5 + E/2, E exponential with mean 1, drawn from url and at.
func Jitter(url string, at time.Time) float64 {
	h := fnv.New64a()
	h.Write([]byte(url))
	var b [8]byte
	u := uint64(at.Unix())
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	h.Write(b[:])
	// 53 random bits as a uniform draw in (0, 1].
	p := (float64(h.Sum64()>>11) + 1) / (1 << 53)
	return 0.5 - math.Log(p)/2
}
