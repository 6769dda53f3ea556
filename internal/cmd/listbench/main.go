// Command listbench measures a spider's passes over a large list, for
// scripts/bench-list and scripts/bench-pg. On a list file (-list) it
// generates a ru.wikipedia-like list (percent-encoded Cyrillic titles) if
// the file does not exist, then runs passes the way a spider does (append
// found links, record the previous batch, claim a batch) and prints each
// pass's lock hold time and the process's peak RSS. With -pg it loads the
// same generated list into PostgreSQL (pglist's Import, COPY) and runs the
// same passes there; -spiders K then runs K spiders passing at once.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

type options struct {
	path, dsn, schema              string
	lines, passes, adds, batch     int
	warmup                         int
	spiders                        int
	spiderFor, watch               time.Duration
	keep, compact                  bool
	cpuprofile, memprofile, prefix string
}

func main() {
	var o options
	flag.StringVar(&o.path, "list", "bench.list", "list file (generated if missing)")
	flag.StringVar(&o.dsn, "pg", "", "run on PostgreSQL at `DSN` instead of the list file")
	flag.StringVar(&o.schema, "schema", "", "PostgreSQL schema of the list (default listbench_PID, dropped at the end)")
	flag.BoolVar(&o.keep, "keep", false, "keep the PostgreSQL schema (a later run with -schema reuses its lines)")
	flag.IntVar(&o.lines, "lines", 5_000_000, "lines to generate")
	flag.IntVar(&o.passes, "passes", 5, "passes to run (with -spiders: the most each spider runs)")
	flag.IntVar(&o.warmup, "warmup", 0, "passes to run before the measured ones, summarized apart (all but the first)")
	flag.IntVar(&o.adds, "adds", 1000, "links appended per pass (half of them already listed)")
	flag.IntVar(&o.batch, "batch", 1000, "lines claimed (and recorded at the next pass) per pass")
	flag.IntVar(&o.spiders, "spiders", 0, "with -pg: run `K` spiders passing at once, and print their total claims per second")
	flag.DurationVar(&o.spiderFor, "for", 10*time.Second, "with -spiders: the longest the spiders pass")
	flag.DurationVar(&o.watch, "watch", 0, "with -pg and one spider: print the lines table's live and dead rows, vacuums and sizes every `interval`")
	flag.BoolVar(&o.compact, "compact", false, "time one whole-file rewrite (temp file, fsync, rename) instead of passes")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the passes to `file`")
	flag.StringVar(&o.memprofile, "memprofile", "", "write an allocation profile of the passes to `file`")
	flag.Parse()
	var err error
	switch {
	case o.spiders > 0 && o.dsn == "":
		err = errors.New("-spiders needs -pg: spiders at once are measured on PostgreSQL")
	case o.dsn != "":
		err = runPG(context.Background(), o)
	default:
		err = runFile(context.Background(), o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "listbench:", err)
		os.Exit(1)
	}
}

func runFile(ctx context.Context, o options) error {
	if _, err := os.Stat(o.path); os.IsNotExist(err) {
		t := time.Now()
		if err := generate(o.path, o.lines); err != nil {
			return err
		}
		fmt.Printf("generated %d lines in %.1fs\n", o.lines, time.Since(t).Seconds())
	}
	fi, err := os.Stat(o.path)
	if err != nil {
		return err
	}
	l, err := list.Open(o.path, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		return err
	}
	if o.compact {
		st, err := l.Compact(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("compact: %d lines rewritten in %.3fs (scan %.3fs, write %.3fs)\n", st.Lines, st.HeldSec, st.ScanSec, st.WriteSec)
		return nil
	}
	defer profile(o)()
	w := newWorkload(o.lines, o.adds, o.batch)
	sp := &spider{id: "bench", next: newURLs(o.lines, 0)}
	var held figures
	warm, f, err := w.passes(ctx, l, sp, o.warmup, o.passes, func(i int, c *list.Cycle, _ time.Duration) {
		s := c.Stats
		if i >= o.warmup {
			held.add(time.Duration(s.HeldSec*float64(time.Second)), 0)
		}
		fmt.Printf("%s %d: lines %d, added %d, recorded %d, claimed %d, lock held %.3fs (scan %.3fs, write %.3fs, waited %.3fs), rewrote %v\n",
			passName(i, o.warmup), i+1, s.Lines, s.Added, s.Recorded, s.Claimed, s.HeldSec, s.ScanSec, s.WriteSec, s.WaitSec, s.Rewrote)
	})
	if err != nil {
		return err
	}
	if o.passes == 0 {
		return nil
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("list %s: %d bytes; median lock hold %.3fs over %d passes; peak RSS %d MB\n",
		o.path, fi.Size(), held.median().Seconds(), len(held.lat), ru.Maxrss/1024)
	if len(warm.lat) > 0 {
		fmt.Println(warm.summary("file warm-up", o.batch))
	}
	fmt.Println(f.summary("file", o.batch))
	return nil
}

// passName names pass i: a warm-up pass or a measured one.
func passName(i, warmup int) string {
	if i < warmup {
		return "warm-up pass"
	}
	return "pass"
}

// newURLs returns the first number of the new URLs spider k of this run
// finds: beyond the generated list, different each run and for each
// spider, so that appended links are new.
func newURLs(lines, k int) int {
	return lines + int(time.Now().UnixNano()%1_000_000)*1000 + k*100_000_000
}

// profile starts the profiles o asks for and returns what ends them.
func profile(o options) func() {
	var stop []func()
	if o.cpuprofile != "" {
		if pf, err := os.Create(o.cpuprofile); err == nil {
			pprof.StartCPUProfile(pf)
			stop = append(stop, pprof.StopCPUProfile)
		}
	}
	if o.memprofile != "" {
		runtime.MemProfileRate = 4096
		stop = append(stop, func() {
			if mf, err := os.Create(o.memprofile); err == nil {
				pprof.Lookup("allocs").WriteTo(mf, 0)
				mf.Close()
			}
		})
	}
	return func() {
		for _, f := range stop {
			f()
		}
	}
}

// generate writes the generated list of n lines (entry) to path.
func generate(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 4<<20)
	fmt.Fprintln(w, list.Header)
	base := generatedBase(time.Now())
	var buf []byte
	for i := 0; i < n; i++ {
		e := entry(i, base)
		buf = list.AppendLine(buf[:0], &e, mirror.ReserveLen(e.URL))
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
