package crawl

import (
	"errors"
	"fmt"
	"time"

	"github.com/spider-mirror/spider/list"
)

// ErrStartFailed is wrapped by the error of a run that stopped because
// its start URLs (level-0 lines without a copy: never mirrored) failed,
// and it fetched nothing: a dead start URL (refused, no such host,
// 404, forbidden by robots.txt) is a mistake to report, not to retry
// silently forever.
var ErrStartFailed = errors.New("the start URL could not be fetched")

// failure returns why o's line failed, or "" if it did not: fetched,
// unchanged, archived (the site answered that it is gone), or handed back
// unfetched.
func failure(o *outcome) string {
	switch o.res.State {
	case 0, list.Downloaded, list.Archived:
		return ""
	}
	why := o.res.State.String()
	if o.rec != nil {
		switch {
		case o.rec.Error != "":
			why = o.rec.Error
		case o.rec.Reason != "":
			why = o.rec.Reason
		}
	}
	return o.res.URL + ": " + why
}

// tally counts a taken outcome's failure in sum (Failed, FirstFailure).
// A line robots.txt forbids is no failure of the run: it is checked again
// when due (a start URL's is, see startWatch).
func tally(sum *Summary, o *outcome) {
	if why := failure(o); why != "" && o.res.State != list.Disallowed {
		sum.Failed++
		if sum.FirstFailure == "" {
			sum.FirstFailure = why
		}
	}
}

// startWatch follows the run's start lines: level-0 lines without a copy
// (never mirrored) that the run claimed. Once every one of them has been
// answered, at least one with a failure, and the run has fetched nothing
// and has no other claimed line still out, the run stops with
// ErrStartFailed: a dead start URL seeded into a list whose other lines
// are fetched fine is a failure of that line, not of the run. The loop
// owns it.
type startWatch struct {
	open   map[string]bool // claimed, not answered yet
	failed string          // the first failure: "URL: why"
}

// claimed notes a line a pass claimed.
func (w *startWatch) claimed(en list.Entry) {
	if en.Level != 0 || en.File != "" {
		return
	}
	if w.open == nil {
		w.open = map[string]bool{}
	}
	w.open[en.URL] = true
}

// answered notes the outcome of a line. A start line handed back because
// an earlier failure holds it back (its history's retry time) counts as
// failed again: rerunning a dead start URL at once says so too.
func (w *startWatch) answered(o *outcome, now time.Time) {
	u := o.job.en.URL
	if !w.open[u] {
		return
	}
	why := failure(o)
	if h := o.job.rec; o.res.State == 0 && h.Error != "" && h.RetryAt.After(now) {
		why = fmt.Sprintf("%s: %s (held back until %s)", u, h.Error, h.RetryAt.Format(time.RFC3339))
	} else if o.res.State == 0 {
		return // handed back: claimed again later
	}
	delete(w.open, u)
	if why != "" && w.failed == "" {
		w.failed = why
	}
}

// verdict returns ErrStartFailed, wrapped, if the run is to stop; out
// says other claimed lines are still to be answered (jobs.state's queued):
// the verdict waits for them.
func (w *startWatch) verdict(sum Summary, out bool) error {
	if w.failed == "" || len(w.open) > 0 || out || sum.Fetched+sum.Unchanged+sum.Archived > 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrStartFailed, w.failed)
}
