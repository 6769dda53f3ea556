package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles writes the profiles named by the environment, for finding
// where a crawl's time goes (scripts/profile-crawl):
//
//	SPIDER_CPUPROFILE=FILE    CPU profile of the whole run
//	SPIDER_BLOCKPROFILE=FILE  where goroutines waited (channels, locks)
//	SPIDER_MEMPROFILE=FILE    allocations, written at exit
//	SPIDER_TRACE=FILE         execution trace (go tool trace FILE)
//
// The returned function writes and closes them; main calls it before exit.
func startProfiles() (stop func()) {
	var stops []func()
	if path := os.Getenv("SPIDER_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "spider: warning: no CPU profile: %v\n", err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("SPIDER_TRACE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "spider: warning: no trace: %v\n", err)
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	if path := os.Getenv("SPIDER_BLOCKPROFILE"); path != "" {
		runtime.SetBlockProfileRate(int(1e6)) // a sample per millisecond blocked
		stops = append(stops, func() { writeProfile("block", path) })
	}
	if path := os.Getenv("SPIDER_MEMPROFILE"); path != "" {
		stops = append(stops, func() { writeProfile("allocs", path) })
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

func writeProfile(name, path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup(name).WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "spider: warning: no %s profile: %v\n", name, err)
	}
}
