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
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stopProfiles := startProfiles()
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() { // owned by main; ends with the process
		<-sigs
		cancel() // the first signal stops gracefully
		for sig := range sigs {
			if sig != os.Interrupt {
				// SIGTERM always asks for the graceful stop: timeout(1)
				// and process-group kills deliver it twice at once, and a
				// service manager follows it with SIGKILL if it must.
				continue
			}
			// A second Ctrl-C ends the process at once. The list loses
			// nothing: a pass cut short is finished from its journal, and
			// the claims held go back at the next pass of any spider.
			fmt.Fprintln(os.Stderr, "spider: stopped at once by a second interrupt; claims in flight return at the next pass")
			os.Exit(exitSecondSignal)
		}
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = nil // stopped by a signal, say while waiting for the list's lock
	}
	code := report(os.Stderr, err)
	stopProfiles()
	os.Exit(code)
}
