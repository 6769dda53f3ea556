package pglist

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// claimProfiles are profiles with every kind of bound.
var claimProfiles = []claim.Profile{
	{Name: "slow", Window: 24 * time.Hour, Longest: 7 * 24 * time.Hour, MaxLevel: -1, Stale: 14 * 24 * time.Hour, Batch: 50},
	{Name: "fast", Window: time.Hour, Shortest: 10 * time.Minute, Longest: 3 * 24 * time.Hour, MaxLevel: 2, Batch: 10},
	{Name: "nomodel", Window: 6 * time.Hour, MaxLevel: 4, Stale: 3 * 24 * time.Hour, Batch: 10},
	{Name: "short", Window: 2 * 24 * time.Hour, Shortest: time.Hour, Longest: 10 * 24 * time.Hour, MaxLevel: -1, Batch: 10},
}

// The candidate queries select exactly the lines claim finds due, whatever
// the profile, the backlog and the line; and the waited, new and stale
// queries return them in claim's own order, the lines an earlier tier
// returned aside: the new query's first visits that waited past the stale
// bound (the waited query's), and the stale query's hinted copies and
// start pages (the new tier's).
func TestCandidatesAreClaimsDueLines(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(1, 2))
	const n, recent = 3000, 1000
	entries := map[string]list.Entry{}
	load(t, s, n+recent, func(i int) list.Entry {
		e := randomEntry(r, now, fmt.Sprintf("http://h/%d", i))
		if i >= n {
			// Pages copied within the last two hours, with no model
			// or one: the profiles' shortest, where the draws of a
			// picker with no delay (claim.UnpacedWait) decide.
			e = list.Entry{URL: e.URL, Level: e.Level, State: list.Downloaded, File: "h/a.html",
				Modified: now.Add(-time.Duration(r.Int64N(int64(2 * time.Hour)))).Truncate(time.Second)}
			if r.IntN(2) == 0 {
				e.Due = e.Modified.Add(time.Duration(1+r.Int64N(4*3600)) * time.Second)
			}
		}
		entries[e.URL] = e
		return e
	})
	levels := []int{0, 1, 2, 3, 4, 5, 6, 7}
	ctx := context.Background()
	for _, p := range claimProfiles {
		for _, mode := range []struct{ backlog, early, unpaced bool }{{false, false, false}, {true, false, false}, {false, true, false}, {true, true, false},
			{false, false, true}, {true, false, true}, {false, true, true}} {
			backlog, early, unpaced := mode.backlog, mode.early, mode.unpaced
			for _, at := range []time.Time{now, now.Add(-36 * time.Hour), now.Add(90 * time.Minute).Add(500 * time.Millisecond)} {
				name := fmt.Sprintf("%s backlog=%v early=%v unpaced=%v at %v", p.Name, backlog, early, unpaced, at)
				k := &claim.Picker{P: p, Now: at, Backlog: backlog, Early: early, Unpaced: unpaced}
				got := map[string]string{}
				for _, q := range candQueries(claimSpec{p: p, now: at, backlog: backlog, early: early, unpaced: unpaced}, levels, n+recent) {
					var order []list.Entry
					rows, err := s.pool.Query(ctx, q.sql, q.args...)
					if err != nil {
						t.Fatalf("%s: %s: %v", name, q.class, err)
					}
					for rows.Next() {
						var w row
						if err := rows.Scan(w.dest()...); err != nil {
							t.Fatal(err)
						}
						e := *w.entry()
						if c, dup := got[e.URL]; dup {
							if !(c == qWaited && q.class == qNew || q.class == qStale || c == qStale) {
								t.Errorf("%s: %s in %s and %s", name, e.URL, c, q.class)
							}
							continue // claimed in an earlier tier, in its order
						}
						got[e.URL] = q.class
						order = append(order, e)
					}
					if err := rows.Err(); err != nil {
						t.Fatal(err)
					}
					if q.class == qWaited || q.class == qStale || q.class == qNew {
						sorted := slices.Clone(order)
						slices.SortStableFunc(sorted, func(a, b list.Entry) int {
							if k.Less(&a, &b) {
								return -1
							} else if k.Less(&b, &a) {
								return 1
							}
							return 0
						})
						for i := range order {
							if !k.Less(&order[i], &sorted[i]) && !k.Less(&sorted[i], &order[i]) {
								continue
							}
							t.Errorf("%s: %s query out of claim's order at %d: %+v before %+v", name, q.class, i, order[i], sorted[i])
							break
						}
					}
				}
				for url, e := range entries {
					due := k.Due(&e)
					if _, sel := got[url]; sel != due {
						t.Errorf("%s: %+v: selected %v, claim says due %v", name, e, sel, due)
					}
				}
			}
		}
	}
}

// A day of a span is 24 hours whatever zone the DSN or the server asks
// for: a copy taken two days before its model's due time, with the clocks
// of the session's zone going back in between, is due early a day after
// it, not 25 hours.
func TestCandidatesIgnoreSessionZone(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, inZone(dsn, "America/New_York"), testSchema(t, dsn))
	copied := time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC) // New York went from EDT to EST on November 1
	e := list.Entry{URL: "http://h/a", Level: 1, State: list.Downloaded, File: "h/a.html", Modified: copied, Due: copied.Add(48 * time.Hour)}
	load(t, s, 1, func(int) list.Entry { return e })
	p := claimProfiles[1]
	at := copied.Add(24*time.Hour + 30*time.Minute)
	if !(&claim.Picker{P: p, Now: at, Early: true}).Due(&e) {
		t.Fatal("claim: not due")
	}
	var n int
	for _, q := range candQueries(claimSpec{p: p, now: at, early: true}, []int{1}, 10) {
		rows, err := s.pool.Query(context.Background(), q.sql, q.args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n != 1 {
		t.Errorf("the candidate queries selected %d lines at %v, want the copy due at %v", n, at, copied.Add(24*time.Hour))
	}
}

// Every candidate query can run on its partial index in the index's
// order: with the other plans priced out, each scans its index and sorts
// nothing but the union of its levels. (How the planner chooses at scale,
// BenchmarkClaim shows.)
func TestCandidateQueriesUseIndexes(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(3, 4))
	load(t, s, 2000, func(i int) list.Entry { return randomEntry(r, now, fmt.Sprintf("http://h/%d", i)) })
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, `RESET ALL`)
	want := map[string]string{qWaited: "lines_waiting", qStale: "lines_since", qNew: "lines_new", qPlain: "lines_plain", qModelDue: "lines_model_due", qModelAged: "lines_model_age"}
	for _, p := range claimProfiles {
		for _, q := range slices.Concat(candQueries(claimSpec{p: p, now: now}, []int{0, 1, 2}, 60), candQueries(claimSpec{p: p, now: now, early: true}, []int{0, 1, 2}, 60),
			candQueries(claimSpec{p: p, now: now, unpaced: true}, []int{0, 1, 2}, 60)) {
			rows, err := conn.Query(ctx, `EXPLAIN `+q.sql, q.args...)
			if err != nil {
				t.Fatal(err)
			}
			var plan strings.Builder
			for rows.Next() {
				var line string
				rows.Scan(&line)
				plan.WriteString(line + "\n")
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			// A refresh query sorts the few rows its levels' index scans
			// return, once, to keep the earliest; nothing else is sorted.
			sorts := 0
			if q.class != qWaited && q.class != qStale && q.class != qNew {
				sorts = 1
			}
			if !strings.Contains(plan.String(), "Index Scan using "+want[q.class]+" on lines") || strings.Count(plan.String(), "Sort Key") != sorts || strings.Contains(plan.String(), "Seq Scan") {
				t.Errorf("%s %s: plan does not scan %s:\n%s", p.Name, q.class, want[q.class], plan.String())
			}
		}
	}
}
