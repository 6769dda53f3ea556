// Command listbench measures locked passes over a large list file, for
// scripts/bench-list: it generates a ru.wikipedia-like list (percent-encoded
// Cyrillic titles) if the file does not exist, then runs passes the way a
// spider does (append found links, record the previous batch, claim a
// batch) and prints each pass's lock hold time and the process's peak RSS.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"syscall"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

var words = []string{"Москва", "история", "Пушкин", "Волга", "список", "война", "город", "наука", "музыка", "фильм", "Россия", "год"}

func title(i int) string {
	return "https://ru.wikipedia.org/wiki/" + url.PathEscape(words[i%12]+"_"+fmt.Sprint(i))
}

func main() {
	path := flag.String("list", "bench.list", "list file (generated if missing)")
	lines := flag.Int("lines", 5_000_000, "lines to generate")
	passes := flag.Int("passes", 5, "passes to run")
	adds := flag.Int("adds", 1000, "links appended per pass (half of them already listed)")
	batch := flag.Int("batch", 1000, "lines claimed (and recorded at the next pass) per pass")
	compact := flag.Bool("compact", false, "time one whole-file rewrite (temp file, fsync, rename) instead of passes")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the passes to `file`")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the passes to `file`")
	flag.Parse()
	if _, err := os.Stat(*path); os.IsNotExist(err) {
		t := time.Now()
		if err := generate(*path, *lines); err != nil {
			fmt.Fprintln(os.Stderr, "listbench:", err)
			os.Exit(1)
		}
		fmt.Printf("generated %d lines in %.1fs\n", *lines, time.Since(t).Seconds())
	}
	fi, err := os.Stat(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listbench:", err)
		os.Exit(1)
	}
	l, err := list.Open(*path, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		fmt.Fprintln(os.Stderr, "listbench:", err)
		os.Exit(1)
	}
	if *compact {
		st, err := l.Compact(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, "listbench:", err)
			os.Exit(1)
		}
		fmt.Printf("compact: %d lines rewritten in %.3fs (scan %.3fs, write %.3fs)\n", st.Lines, st.HeldSec, st.ScanSec, st.WriteSec)
		return
	}
	p := claim.Profile{Name: "slow", Window: 24 * time.Hour, Longest: 336 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour, Batch: *batch}
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err == nil {
			pprof.StartCPUProfile(pf)
			defer pprof.StopCPUProfile()
		}
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 4096
		defer func() {
			if mf, err := os.Create(*memprofile); err == nil {
				pprof.Lookup("allocs").WriteTo(mf, 0)
				mf.Close()
			}
		}()
	}
	var prev []list.Entry
	var held []float64
	next := *lines + int(time.Now().UnixNano()%1_000_000)*1000 // new URLs each run
	for i := 0; i < *passes; i++ {
		now := time.Now()
		c := &list.Cycle{Spider: "bench", Now: now, Lease: 10 * time.Minute, Pick: &claim.Picker{P: p, Now: now}}
		for j := 0; j < *adds; j++ {
			if j%2 == 0 {
				c.Add = append(c.Add, list.Add{URL: title((j * 7919) % *lines), Level: 4})
			} else {
				c.Add = append(c.Add, list.Add{URL: title(next), Level: 4})
				next++
			}
		}
		for _, e := range prev {
			f, _ := mirror.Path(e.URL, "text/html")
			c.Results = append(c.Results, list.Result{URL: e.URL, State: list.Downloaded, File: f, Modified: now})
		}
		if err := l.Run(context.Background(), c); err != nil {
			fmt.Fprintln(os.Stderr, "listbench:", err)
			os.Exit(1)
		}
		prev = c.Claimed
		s := c.Stats
		held = append(held, s.HeldSec)
		fmt.Printf("pass %d: lines %d, added %d, recorded %d, claimed %d, lock held %.3fs (scan %.3fs, write %.3fs, waited %.3fs), rewrote %v\n",
			i+1, s.Lines, s.Added, s.Recorded, s.Claimed, s.HeldSec, s.ScanSec, s.WriteSec, s.WaitSec, s.Rewrote)
	}
	if len(held) == 0 {
		return
	}
	sort.Float64s(held)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("list %s: %d bytes; median lock hold %.3fs over %d passes; peak RSS %d MB\n",
		*path, fi.Size(), held[len(held)/2], len(held), ru.Maxrss/1024)
}

// generate writes a list of n lines: 90% downloaded over the last 20 days,
// 10% found, levels 0-9.
func generate(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 4<<20)
	fmt.Fprintln(w, list.Header)
	base := time.Now().Add(-20 * 24 * time.Hour).Truncate(time.Second)
	var buf []byte
	for i := 0; i < n; i++ {
		u := title(i)
		e := list.Entry{Level: min(i/50_000, 9), State: list.Found, Due: base, URL: u}
		if i%10 != 0 {
			e.State, e.Modified = list.Downloaded, base.Add(time.Duration(i%(20*86400))*time.Second)
			e.File, _ = mirror.Path(u, "text/html")
			// A change model's due, from an hour to a month later.
			e.Due = e.Modified.Add(time.Duration(3600+i*7919%(30*86400)) * time.Second)
		}
		buf = list.AppendLine(buf[:0], &e, mirror.ReserveLen(u))
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
