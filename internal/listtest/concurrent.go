package listtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// Spiders claiming from one list at once, each through its own handle,
// while they all append the same links in different orders: no URL gets
// two lines, no line is claimed twice, none is lost.
func testConcurrentClaimers(t *testing.T, b Backend) {
	const spiders, lines, batch = 4, 120, 5
	open := b.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	claimed := make([][]string, spiders)
	errs := make([]error, spiders)
	sps := make([]*spider, spiders)
	for i := range sps {
		sps[i] = join(t, b, open, fmt.Sprintf("s%d", i))
	}
	for i, sp := range sps {
		wg.Add(1)
		// One goroutine per spider, started here, owned by this test; it
		// ends when the list has nothing left for it, on an error, or
		// after a bounded number of passes.
		go func() {
			defer wg.Done()
			claimed[i], errs[i] = work(ctx, sp, i, lines, batch)
		}()
	}
	wg.Wait()
	seen := map[string]string{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("spider %d: %v", i, err)
		}
		for _, url := range claimed[i] {
			if by, dup := seen[url]; dup {
				t.Errorf("%s claimed by %s and s%d", url, by, i)
			}
			seen[url] = fmt.Sprintf("s%d", i)
		}
	}
	es := byURL(t, sps[0].s)
	if len(es) != lines || len(seen) != lines {
		t.Errorf("%d lines, %d claimed; want %d", len(es), len(seen), lines)
	}
	for _, e := range es {
		if e.State != list.Downloaded || e.Spider != "" {
			t.Errorf("line left %+v", e)
		}
	}
}

// work is one spider of testConcurrentClaimers: it appends every link, in
// an order of its own, then claims and records until nothing is due.
func work(ctx context.Context, sp *spider, n, lines, batch int) ([]string, error) {
	var adds []list.Add
	for j := range lines {
		k := (j*(2*n+1) + n) % lines // each spider its own permutation
		adds = append(adds, list.Add{URL: u(fmt.Sprintf("page%d", k)), Level: 1 + k%3})
	}
	var mine []string
	var results []list.Result
	for pass := 0; pass < 4*lines; pass++ {
		c := &list.Cycle{Spider: sp.id, Now: t0, Results: results, Pick: &claim.Picker{P: slowProfile, Now: t0, Want: batch}}
		if pass == 0 {
			c.Add = adds
		}
		if err := sp.s.Run(ctx, c); err != nil {
			return nil, err
		}
		if c.Stats.Recorded != len(results) {
			return nil, fmt.Errorf("recorded %d of %d", c.Stats.Recorded, len(results))
		}
		results = nil
		for _, e := range c.Claimed {
			mine = append(mine, e.URL)
			results = append(results, list.Result{URL: e.URL, State: list.Downloaded, File: "f", Modified: t0})
		}
		if len(results) == 0 && pass > 0 {
			return mine, nil
		}
	}
	return nil, fmt.Errorf("still claiming after %d passes", 4*lines)
}
