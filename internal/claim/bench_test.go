package claim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// BenchmarkDue measures what a file store's pass spends in the policy: a
// Picker's Due on each of a million pages, at the slow profile's default
// bounds, for each kind of picker, with the copies taken over the last two
// days; and for a spider with no delay, over its last shortest (30
// minutes), as it runs when it keeps up: then the pages between half of
// shortest and shortest old need their draw (claim.UnpacedWait), an MD5,
// and the younger ones need it for Next until a sooner line is known.
// Keeping a million pages so takes 740 requests a second. A pass at 5M
// lines calls Due 5M times.
func BenchmarkDue(b *testing.B) {
	const n = 1_000_000
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	slow := Profile{Name: "slow", Window: 24 * time.Hour, Shortest: 30 * time.Minute, MaxLevel: -1, Stale: 14 * 24 * time.Hour, Batch: 50}
	entries := func(over time.Duration) []list.Entry {
		r := rand.New(rand.NewPCG(1, 2))
		es := make([]list.Entry, n)
		for i := range es {
			m := at.Add(-time.Duration(r.Int64N(int64(over)))).Truncate(time.Second)
			es[i] = list.Entry{URL: fmt.Sprintf("https://ru.wikipedia.org/wiki/%d", i), Level: r.IntN(8), State: list.Downloaded,
				File: "ru.wikipedia.org/wiki/x.html", Modified: m, Due: m.Add(time.Duration(1+r.Int64N(72*3600)) * time.Second)}
		}
		return es
	}
	for _, mode := range []struct {
		name           string
		early, unpaced bool
		over           time.Duration
	}{{"due", false, false, 48 * time.Hour}, {"early", true, false, 48 * time.Hour},
		{"unpaced", false, true, 48 * time.Hour}, {"unpaced-within-shortest", false, true, 30 * time.Minute}} {
		es := entries(mode.over)
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				k := &Picker{P: slow, Now: at, Early: mode.early, Unpaced: mode.unpaced}
				for i := range es {
					k.Due(&es[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/line")
		})
	}
}
