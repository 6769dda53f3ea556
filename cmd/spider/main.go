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
	"errors"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the first signal stops gracefully; a second one kills at once
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = nil // stopped by a signal, say while waiting for the list's lock
	}
	stop()
	os.Exit(report(os.Stderr, err))
}
