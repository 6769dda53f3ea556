package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
)

// runVerdict turns how a run ended into the program's error: a run that
// fetched nothing it was asked to, or could not write its mirror, fails
// with a hint; a run stopped by a signal is a normal stop, and so is a run
// with nothing due.
func runVerdict(sum crawl.Summary, err error, signalled bool, mirrorDir string) error {
	switch {
	case errors.Is(err, crawl.ErrMirrorUnwritable):
		return hintErr{err, "free space on the mirror's file system or make " + mirrorDir + " writable, then run again: the lines not written went back to the list unchanged, and the copies on disk are as they were"}
	case errors.Is(err, crawl.ErrStartFailed) && strings.Contains(err.Error(), "disallowed by robots.txt"):
		return hintErr{err, "the site's robots.txt forbids the start URL; --no-robots is for your own site only. The line stays in the list and is checked again when due"}
	case errors.Is(err, crawl.ErrStartFailed):
		return hintErr{err, "check the start URL and that the site is up (and answers robots.txt, which comes first); spider show URL tells what is known of it. The line stays in the list and is tried again after its back-off"}
	case err != nil:
		return listErr(err)
	case !signalled && sum.Failed > 0 && sum.Fetched+sum.Unchanged+sum.Archived == 0:
		return hintErr{fmt.Errorf("nothing fetched: %d attempts failed, the first %s", sum.Failed, sum.FirstFailure),
			"spider status lists the most frequent errors and spider show URL one URL's history; the lines are tried again after their back-off"}
	}
	return nil
}

// startsHeldBack returns, for a run that attempted nothing, the error of
// the first start URL given that was never mirrored and whose last attempt
// failed: a dead start URL run again before its line is due says so
// rather than end quietly.
func startsHeldBack(h historyReader, starts []string) error {
	if len(starts) == 0 {
		return nil
	}
	recs, err := h.Get(starts)
	if err != nil {
		return nil // no history to tell from: nothing to add
	}
	for _, u := range starts {
		h, ok := recs[u]
		if !ok || h.Checksum != "" {
			continue // never tried, or mirrored once
		}
		why := h.Error
		if why == "" && strings.HasPrefix(h.Reason, "disallowed") {
			why = h.Reason
		}
		if why == "" {
			continue
		}
		when := "tried again once due"
		switch {
		case !h.RetryAt.IsZero():
			when = "next attempt after " + h.RetryAt.UTC().Format(time.RFC3339)
		case !h.LastAttempt.IsZero():
			when = "last attempt " + h.LastAttempt.UTC().Format(time.RFC3339) + ", tried again once due"
		}
		return fmt.Errorf("%w: %s: %s (%s)", crawl.ErrStartFailed, u, why, when)
	}
	return nil
}
