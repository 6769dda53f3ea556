package pglist

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// benchRows is the size of the list the benchmarks claim from:
// SPIDER_BENCH_ROWS, 1,000,000 by default.
func benchRows(b *testing.B) int {
	if n, err := strconv.Atoi(os.Getenv("SPIDER_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// steadyEntry returns a line of a list in its steady state: nearly every
// page has a copy, most with a change model (due in the past or future),
// some without, a few hinted, a few never visited; levels fall off
// geometrically from the start pages.
func steadyEntry(r *rand.Rand, now time.Time, i int) list.Entry {
	level := 0
	for level < 12 && r.IntN(3) != 0 {
		level++
	}
	e := list.Entry{URL: fmt.Sprintf("http://site.example/%d/page-%d.html", level, i), Level: level, State: list.Downloaded, File: "f"}
	e.Modified = now.Add(-time.Duration(r.Int64N(int64(30 * 24 * time.Hour)))).Truncate(time.Second)
	switch x := r.IntN(100); {
	case x < 1:
		e.State, e.File, e.Modified = list.Found, "", time.Time{}
		e.Due = now.Add(-time.Duration(r.Int64N(int64(time.Hour)))).Truncate(time.Second)
	case x < 2:
		e.Due = e.Modified // hinted
	case x < 10:
		// no model
	default:
		e.Due = e.Modified.Add(time.Duration(1 + r.Int64N(int64(40*24*time.Hour)))).Truncate(time.Second)
		if !e.Due.After(e.Modified) {
			e.Due = e.Modified.Add(time.Second)
		}
	}
	return e
}

// BenchmarkClaim measures a spider's pass on a large list: it records the
// previous pass's batch (returned unfetched, so the list stays as it was)
// and claims a batch, with the slow and the fast profile, and with a
// backlog of first visits.
func BenchmarkClaim(b *testing.B) {
	dsn := testDSN(b)
	s := openTest(b, dsn, testSchema(b, dsn))
	n := benchRows(b)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(5, 6))
	start := time.Now()
	load(b, s, n, func(i int) list.Entry { return steadyEntry(r, now, i) })
	b.Logf("loaded %d lines in %v", n, time.Since(start).Round(time.Millisecond))
	fast := claim.Profile{Name: "fast", Window: time.Hour, Shortest: 10 * time.Minute, Longest: 24 * time.Hour, MaxLevel: 3, Batch: 10}
	for _, bc := range []struct {
		name    string
		p       claim.Profile
		backlog bool
	}{{"slow", slow, false}, {"fast", fast, false}, {"slow-backlog", slow, true}} {
		b.Run(bc.name, func(b *testing.B) {
			id := bc.name
			if len(id) > list.SpiderWidth {
				id = id[:list.SpiderWidth]
			}
			l, err := s.LockSpider(context.Background(), id)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Unlock()
			var back []list.Result
			for b.Loop() {
				c := &list.Cycle{Spider: id, Now: now, Results: back, Pick: &claim.Picker{P: bc.p, Now: now, Backlog: bc.backlog}}
				if err := s.Run(context.Background(), c); err != nil {
					b.Fatal(err)
				}
				if len(c.Claimed) != bc.p.Batch {
					b.Fatalf("claimed %d, want %d", len(c.Claimed), bc.p.Batch)
				}
				back = back[:0]
				for _, e := range c.Claimed {
					back = append(back, list.Result{URL: e.URL})
				}
			}
		})
	}
}
