// Command spider keeps a browsable on-disk mirror of a living web site
// fresh. Run two of them side by side on one shared list:
//
//	spider --profile fast --start http://example.org/
//	spider --profile slow --start http://example.org/
//
// See spider --help, the README and config.example.toml.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(report(os.Stderr, err))
}
