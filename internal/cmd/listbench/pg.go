package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/list"
)

// runPG runs the workload on a list in PostgreSQL: it loads the generated
// list into the schema (unless it holds lines already: a kept schema),
// runs the passes of one spider, then those of -spiders K at once, and
// drops the schema unless -keep.
func runPG(ctx context.Context, o options) (err error) {
	if o.schema == "" {
		o.schema = fmt.Sprintf("listbench_%d", os.Getpid())
	}
	s, err := pglist.Open(ctx, o.dsn, pglist.Options{Schema: o.schema})
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() {
			s.Close()
			err = errors.Join(err, dropSchema(context.WithoutCancel(ctx), o.dsn, o.schema))
		}()
	} else {
		defer s.Close()
	}
	if err := load(ctx, s, o.lines); err != nil {
		return err
	}
	w := newWorkload(o.lines, o.adds, o.batch)
	if o.passes > 0 && o.spiders == 0 {
		if err := onePG(ctx, s, w, o); err != nil {
			return err
		}
	}
	if o.spiders > 0 {
		return manyPG(ctx, o, w)
	}
	return nil
}

// load imports the generated list of n lines into an empty list; a list
// holding lines already (a schema kept by an earlier run) is used as is.
func load(ctx context.Context, s *pglist.Store, n int) error {
	base, i := generatedBase(time.Now()), 0
	t := time.Now()
	got, err := s.Import(ctx, func() (list.Entry, bool, error) {
		if i == n {
			return list.Entry{}, false, nil
		}
		i++
		return entry(i-1, base), true, nil
	})
	if errors.Is(err, pglist.ErrNotEmpty) {
		fmt.Printf("schema %s holds a list already: using it\n", s.Schema())
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Printf("loaded %d lines into schema %s in %.1fs\n", got, s.Schema(), time.Since(t).Seconds())
	return nil
}

// onePG runs the passes of one spider (o.warmup, then o.passes) and
// prints each and their summaries.
func onePG(ctx context.Context, s *pglist.Store, w workload, o options) error {
	sp := &spider{id: "bench", next: newURLs(w.lines, 0)}
	lock, err := s.LockSpider(ctx, sp.id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if o.watch > 0 {
		stop, err := watch(ctx, o.dsn, s.Schema(), o.watch)
		if err != nil {
			return err
		}
		defer stop()
	}
	warm, f, err := w.passes(ctx, s, sp, o.warmup, o.passes, func(i int, c *list.Cycle, d time.Duration) {
		st := c.Stats
		fmt.Printf("%s %d: lines %d, added %d, recorded %d, claimed %d, latency %.4fs (transaction %.4fs, waited %.4fs)\n",
			passName(i, o.warmup), i+1, st.Lines, st.Added, st.Recorded, st.Claimed, d.Seconds(), st.HeldSec, st.WaitSec)
	})
	if err != nil {
		return err
	}
	if sz, err := s.Sizes(ctx); err == nil {
		fmt.Printf("schema %s: list tables %d MB\n", s.Schema(), sz.Lines>>20)
	}
	if len(warm.lat) > 0 {
		fmt.Println(warm.summary("postgres warm-up", w.batch))
	}
	fmt.Println(f.summary("postgres", w.batch))
	return nil
}

// manyPG runs o.spiders spiders passing at once, each with a Store (its
// own connections and session) of its own, as spiders in processes of
// their own would. They run o.warmup passes each, then, measured, at most
// o.passes each for at most o.spiderFor. The Stores are opened before and
// closed after all passes, so that no spider takes back the claims of one
// done early. It prints their total claims per second.
func manyPG(ctx context.Context, o options, w workload) error {
	stores := make([]*pglist.Store, o.spiders)
	defer func() {
		for _, s := range stores {
			if s != nil {
				s.Close()
			}
		}
	}()
	sps := make([]*spider, o.spiders)
	for k := range stores {
		s, err := pglist.Open(ctx, o.dsn, pglist.Options{Schema: o.schema})
		if err != nil {
			return err
		}
		stores[k] = s
		sps[k] = &spider{id: fmt.Sprintf("bench-%d", k), next: newURLs(w.lines, k+1)}
		if _, err := s.LockSpider(ctx, sps[k].id); err != nil {
			return err
		}
	}
	if _, _, err := round(ctx, stores, sps, w, o.warmup); err != nil {
		return err
	}
	timed, cancel := context.WithTimeout(ctx, o.spiderFor)
	defer cancel()
	all, elapsed, err := round(timed, stores, sps, w, o.passes)
	if err != nil {
		return err
	}
	fmt.Printf("spiders %d: %d passes in %.1fs, median pass latency %.4fs, %d claimed, %d short batches, total %.0f claims/s\n",
		o.spiders, len(all.lat), elapsed.Seconds(), all.median().Seconds(), all.claimed, all.short, float64(all.claimed)/elapsed.Seconds())
	return nil
}

// round has spider k pass on stores[k], all at once, until each ran
// passes passes or ctx ends; it returns their figures together and how
// long the round took.
func round(ctx context.Context, stores []*pglist.Store, sps []*spider, w workload, passes int) (figures, time.Duration, error) {
	figs := make([]figures, len(sps))
	errs := make([]error, len(sps))
	var wg sync.WaitGroup
	start := time.Now()
	for k, s := range stores {
		// Spider k's goroutine, owned by round, ends when its passes are
		// done, ctx ends or a pass fails; round waits for it.
		wg.Go(func() { errs[k] = passPG(ctx, s, w, sps[k], passes, &figs[k]) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all figures
	for _, f := range figs {
		all.lat = append(all.lat, f.lat...)
		all.claimed += f.claimed
		all.short += f.short
	}
	return all, elapsed, errors.Join(errs...)
}

// passPG runs the spider's passes until they are done or ctx ends, which
// is not an error.
func passPG(ctx context.Context, s *pglist.Store, w workload, sp *spider, passes int, f *figures) error {
	for range passes {
		c, d, err := w.pass(ctx, s, sp)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("spider %s: %w", sp.id, err)
		}
		f.add(d, c.Stats.Claimed)
		if c.Stats.Claimed < w.batch {
			f.short++
		}
	}
	return nil
}

// dropSchema drops the benchmark's schema and all it holds.
func dropSchema(ctx context.Context, dsn, schema string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// watch prints, every interval until stop is called, what the passes
// leave in the lines table: its live and dead rows (pg_stat_user_tables,
// as the server last counted them), the vacuums it had, and the sizes of
// the table and of its indexes. It starts a goroutine of its own, on a
// connection of its own; stop ends it and waits for it.
func watch(ctx context.Context, dsn, schema string, interval time.Duration) (stop func(), err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		defer conn.Close(context.WithoutCancel(ctx))
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			var live, dead, vacuums, heap, index int64
			err := conn.QueryRow(ctx, `SELECT n_live_tup, n_dead_tup, vacuum_count + autovacuum_count,
					pg_relation_size(relid), pg_indexes_size(relid)
				FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'lines'`, schema).Scan(&live, &dead, &vacuums, &heap, &index)
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(os.Stderr, "listbench: watch:", err)
				}
				return
			}
			fmt.Printf("watch %.0fs: live %d, dead %d, vacuums %d, table %d MB, indexes %d MB\n",
				time.Since(start).Seconds(), live, dead, vacuums, heap>>20, index>>20)
		}
	}()
	return func() { cancel(); <-done }, nil
}
