package pglist

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/gatetest"
	"github.com/spider-mirror/spider/internal/hostgate"
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
// and claims a batch, with the slow and the fast profile, with a backlog
// of first visits, and with spiders passing at once.
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
			sp := newBenchSpider(b, s, bc.name)
			for b.Loop() {
				sp.pass(b, now, bc.p, bc.backlog)
			}
		})
	}
	// Spiders passing at once (b.RunParallel: GOMAXPROCS goroutines, each
	// a spider of its own) compete for the same most urgent lines.
	b.Run("slow-parallel", func(b *testing.B) {
		var n atomic.Int32
		b.RunParallel(func(pb *testing.PB) {
			sp := newBenchSpider(b, s, fmt.Sprintf("par%d", n.Add(1)))
			for pb.Next() {
				sp.pass(b, now, slow, false)
			}
		})
	})
}

// benchSpider is a spider of a benchmark: its lock, and the batch it
// returns at its next pass.
type benchSpider struct {
	s    *Store
	id   string
	back []list.Result
}

func newBenchSpider(b *testing.B, s *Store, id string) *benchSpider {
	if len(id) > list.SpiderWidth {
		id = id[:list.SpiderWidth]
	}
	sp := &benchSpider{s: s, id: id}
	l, err := s.LockSpider(context.Background(), id)
	if err != nil {
		b.Error(err) // the passes then fail: ErrNotLocked
		return sp
	}
	b.Cleanup(func() { l.Unlock() })
	return sp
}

// pass records the previous batch, returned unfetched, and claims a batch.
func (sp *benchSpider) pass(b *testing.B, now time.Time, p claim.Profile, backlog bool) {
	c := &list.Cycle{Spider: sp.id, Now: now, Results: sp.back, Pick: &claim.Picker{P: p, Now: now, Backlog: backlog}}
	if err := sp.s.Run(context.Background(), c); err != nil {
		b.Error(err)
		return
	}
	if len(c.Claimed) != p.Batch {
		b.Errorf("claimed %d, want %d", len(c.Claimed), p.Batch)
	}
	sp.back = sp.back[:0]
	for _, e := range c.Claimed {
		sp.back = append(sp.back, list.Result{URL: e.URL})
	}
}

// BenchmarkRefreshQueries measures the refresh tier's candidate queries
// alone, at full interval and refreshing early (claim.Picker.Early), on a
// list in its steady state: the queries a pass runs when the waited, new
// and stale tiers leave its batch short.
func BenchmarkRefreshQueries(b *testing.B) {
	dsn := testDSN(b)
	s := openTest(b, dsn, testSchema(b, dsn))
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(7, 8))
	load(b, s, benchRows(b), func(i int) list.Entry { return steadyEntry(r, now, i) })
	levels := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	ctx := context.Background()
	for _, early := range []bool{false, true} {
		for _, q := range candQueries(claimSpec{p: slow, now: now, early: early}, levels, slow.Batch+8) {
			if q.tier != 3 {
				continue // the refreshes but the start pages' (candQueries)
			}
			b.Run(fmt.Sprintf("%s/early=%v", q.class, early), func(b *testing.B) {
				for b.Loop() {
					rows, err := s.pool.Query(ctx, q.sql, q.args...)
					if err != nil {
						b.Fatal(err)
					}
					rows.Close()
					if err := rows.Err(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGateReserve measures one request's share of the hosts' shared
// pace in PostgreSQL (gatetest.Reserve, as internal/hostgate's
// BenchmarkReserve on files): a TryAcquire and a Release, each a
// transaction on the host's row. A spider with a delay waits the delay
// after the Release and takes the next request with a TryAcquire, so this
// is what the store adds to the gap between two requests to a host.
func BenchmarkGateReserve(b *testing.B) {
	dsn := testDSN(b)
	s := openTest(b, dsn, testSchema(b, dsn))
	g, err := s.OpenGate(context.Background(), hostgate.Options{Conns: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	gatetest.Reserve(b, g)
}
