package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/spider-mirror/spider/internal/crawl"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showProgress keeps one line on w up to date with the engine's progress,
// every half second, until the returned stop is called; w nil shows
// nothing.
func showProgress(w io.Writer, eng *crawl.Engine) (stop func()) {
	if w == nil {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-t.C:
				p := eng.Progress()
				fmt.Fprintf(w, "\r\033[K%s", progressLine(p))
			}
		}
	}()
	return func() { close(done); <-finished }
}

func progressLine(p crawl.Summary) string {
	return fmt.Sprintf("fetched %d (%.1f/s), in flight %d, archived %d, errors %d, passes %d, list %d lines, %s",
		p.Fetched, rate(p.Fetched, p.Elapsed.Seconds()), p.InFlight, p.Archived, p.Errors, p.Cycles, p.LastCycle.Lines, p.Elapsed.Round(time.Second))
}
