package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// The workload is one definition for both stores: the generated list
// (entry), and a spider's pass (workload.cycle) appending links, recording
// the previous batch and claiming the next with the same picker.

var words = []string{"Москва", "история", "Пушкин", "Волга", "список", "война", "город", "наука", "музыка", "фильм", "Россия", "год"}

func title(i int) string {
	return "https://ru.wikipedia.org/wiki/" + url.PathEscape(words[i%12]+"_"+fmt.Sprint(i))
}

// entry returns line i of the generated list whose oldest copy is from
// base: 90% downloaded over the following 20 days with a change model due
// an hour to a month later, 10% found, levels 0-9.
func entry(i int, base time.Time) list.Entry {
	u := title(i)
	e := list.Entry{Level: min(i/50_000, 9), State: list.Found, Due: base, URL: u}
	if i%10 != 0 {
		e.State, e.Modified = list.Downloaded, base.Add(time.Duration(i%(20*86400))*time.Second)
		e.File, _ = mirror.Path(u, "text/html")
		e.Due = e.Modified.Add(time.Duration(3600+i*7919%(30*86400)) * time.Second)
	}
	return e
}

// generatedBase is the time the generated list's copies start from.
func generatedBase(now time.Time) time.Time {
	return now.Add(-20 * 24 * time.Hour).Truncate(time.Second)
}

// runner is a list store's pass: *list.List and *pglist.Store.
type runner interface {
	Run(ctx context.Context, c *list.Cycle) error
}

// workload is the passes the benchmark runs, the same on either store.
type workload struct {
	lines, adds, batch int
	profile            claim.Profile
}

func newWorkload(lines, adds, batch int) workload {
	return workload{lines: lines, adds: adds, batch: batch,
		profile: claim.Profile{Name: "slow", Window: 24 * time.Hour, Longest: 336 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour, Batch: batch}}
}

// spider is one spider's run of passes: the batch it holds, and the next
// number of the new URLs it finds (distinct per spider, per run).
type spider struct {
	id   string
	prev []list.Entry
	next int
}

// cycle returns the spider's next pass at now: adds links (half of them
// already listed, half new), records the previous batch as downloaded,
// claims a batch.
func (w workload) cycle(sp *spider, now time.Time) *list.Cycle {
	c := &list.Cycle{Spider: sp.id, Now: now, Lease: 10 * time.Minute, Pick: &claim.Picker{P: w.profile, Now: now}}
	for j := 0; j < w.adds; j++ {
		if j%2 == 0 {
			c.Add = append(c.Add, list.Add{URL: title((j * 7919) % w.lines), Level: 4})
		} else {
			c.Add = append(c.Add, list.Add{URL: title(sp.next), Level: 4})
			sp.next++
		}
	}
	for _, e := range sp.prev {
		f, _ := mirror.Path(e.URL, "text/html")
		c.Results = append(c.Results, list.Result{URL: e.URL, State: list.Downloaded, File: f, Modified: now})
	}
	return c
}

// pass runs the spider's next pass on r and returns it with its latency:
// the wall time of the whole pass, as the spider waits for it.
func (w workload) pass(ctx context.Context, r runner, sp *spider) (*list.Cycle, time.Duration, error) {
	t := time.Now()
	c := w.cycle(sp, t)
	if err := r.Run(ctx, c); err != nil {
		return nil, 0, err
	}
	d := time.Since(t)
	sp.prev = c.Claimed
	return c, d, nil
}

// passes runs warmup passes of sp on r, then n more, calls report after
// each, and returns the figures of the warm-up passes after the first (the
// first records nothing) and of the n.
func (w workload) passes(ctx context.Context, r runner, sp *spider, warmup, n int, report func(i int, c *list.Cycle, d time.Duration)) (warm, f figures, err error) {
	for i := range warmup + n {
		c, d, err := w.pass(ctx, r, sp)
		if err != nil {
			return warm, f, err
		}
		switch {
		case i >= warmup:
			f.add(d, c.Stats.Claimed)
		case i > 0:
			warm.add(d, c.Stats.Claimed)
		}
		report(i, c, d)
	}
	return warm, f, nil
}

// figures are a series of passes' latencies and claims, and how many
// passes claimed less than a batch.
type figures struct {
	lat     []time.Duration
	claimed int
	short   int
}

func (f *figures) add(d time.Duration, claimed int) {
	f.lat = append(f.lat, d)
	f.claimed += claimed
}

// median returns the median latency (the upper one of an even count).
func (f *figures) median() time.Duration {
	if len(f.lat) == 0 {
		return 0
	}
	s := slices.Clone(f.lat)
	slices.Sort(s)
	return s[len(s)/2]
}

// summary prints the line scripts/bench-pg reads: the median pass latency
// and the claims per second it allows (the batch over that latency).
func (f *figures) summary(store string, batch int) string {
	m := f.median()
	return fmt.Sprintf("%s: median pass latency %.4fs over %d passes, %.0f claims/s", store, m.Seconds(), len(f.lat), float64(batch)/m.Seconds())
}
