// Command floorcrawl is the least a crawler built on Go's net/http can do:
// it fetches every page of one loopback site that href and src attributes
// of its HTML pages lead to (images included), over N connections, the link found last first (as spider's
// fetching ahead does), and keeps nothing. It rewrites no link, writes no
// file, keeps no list and waits for no one.
//
// scripts/bench-crawl runs it beside spider and wget (TOOLS="... floor"),
// so that the table shows the floor that the machine, the test site and
// Go's HTTP client set, and how much of spider's time is its own work on
// top of it. It is a measuring stick, not a crawler: it refuses any host
// that is not a loopback address.
//
// Usage:
//
//	floorcrawl [-c 16] [-max 1000000] URL
//
// It prints "fetched N pages, B bytes, E errors in D" and exits 0; 2 for
// usage errors, 1 if the start page could not be fetched.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
