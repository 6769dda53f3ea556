package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's target unless GOGC says otherwise. A
// crawl allocates a lot that dies young (response bodies, parse trees) and
// keeps little (about 20 MB at 50,000 pages): collecting at 5x the live heap
// instead of 2x saves a tenth of a first mirror's CPU for about 15 MB more.
const gcPercent = 400

// memLimit is a soft limit on the Go heap unless GOMEMLIMIT says otherwise:
// past it the collector runs as often as it must, whatever gcPercent says,
// so the laxer target never costs more than this.
const memLimit = 96 << 20

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memLimit)
	}
}
