package main

import (
	"fmt"
	"io"
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
	stream := func(env, what string, start func(io.Writer) error, stop func()) {
		path := os.Getenv(env)
		if path == "" {
			return
		}
		f, err := os.Create(path)
		if err == nil {
			if err = start(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "spider: warning: no %s: %v\n", what, err)
			return
		}
		stops = append(stops, func() { stop(); f.Close() })
	}
	stream("SPIDER_CPUPROFILE", "CPU profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
	stream("SPIDER_TRACE", "trace", trace.Start, trace.Stop)
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
