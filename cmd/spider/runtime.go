package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// The Go runtime's settings for a spider, each unless its environment
// variable says otherwise.

// gcPercent is the garbage collector's target unless GOGC says otherwise. A
// crawl allocates a lot that dies young (response bodies, parse trees) and
// keeps little: collecting at 5x the live heap instead of 2x spends less
// CPU on collection for a few more megabytes of heap.
const gcPercent = 400

// memLimit is a soft limit on the Go heap unless GOMEMLIMIT says otherwise:
// past it the collector runs as often as it must, whatever gcPercent says,
// so the laxer target never costs more than this.
const memLimit = 96 << 20

// extraProcs is how many more Ps (GOMAXPROCS) a spider runs than the
// runtime would. A spider waits on the network more than it computes, and
// Go reads a socket that became readable only when a P looks for work: with
// every P busy (pages being rewritten, a group commit's system calls), that
// is when one runs out of goroutines, or when the runtime's monitor polls
// the network, up to 10 ms later. With one P more than the processors
// there is usually one idle, its thread in the network poller, and a
// response is read at once.
const extraProcs = 1

func init() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + extraProcs)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memLimit)
	}
}
