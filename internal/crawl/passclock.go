package crawl

import "time"

// passClock is what decides when the loop runs its next pass, as the loop
// sees it at one instant (run.passClock): due and wakeAt are pure
// functions of it and the clock.
type passClock struct {
	first     bool          // the run's first pass is still to run
	idleUntil time.Time     // an idle spider's next pass; zero if not idle
	results   int           // committed results waiting for a pass
	inflight  int           // claimed lines not yet recorded
	pending   int           // outcomes not yet recorded: taken, in a group commit, or committed (run.pending)
	q         jobsState     // the workers' jobs and fetching ahead
	lastPass  time.Time     // when the last pass ended
	spacing   time.Duration // passes while fetching ahead (or with news) are at least this far apart
	flush     time.Duration // results wait at most this long for a pass (Config.Flush)
	news      bool          // news waits for the next pass (run.news)
}

// due reports whether the loop should run a pass at now. The first pass
// runs at once; an idle spider's pass waits for idleUntil. Otherwise: once
// nothing at all is left (only a pass can tell whether the crawl is over);
// with results to record, once every claimed line has finished and been
// committed, or the flush interval has passed, or, once the spacing has
// passed, if a first visit's links or copy, a hint or a guess waits
// (news); and while fetching ahead, once the spacing has passed or the
// workers have nothing left to fetch, if results wait to be recorded or
// lines fetched ahead wait for their claim.
func (s passClock) due(now time.Time) bool {
	if s.first {
		return true
	}
	if !s.idleUntil.IsZero() {
		return !now.Before(s.idleUntil)
	}
	if s.inflight == 0 && s.q.queued == 0 && s.q.items == 0 && s.pending == 0 {
		return true
	}
	if s.results > 0 && now.Sub(s.lastPass) >= s.flush {
		return true
	}
	if !s.q.ahead {
		// A first visit's links may lead to pages never visited (a
		// chain of archive pages, one link a page): they go to the list
		// once the spacing is over, not after the slowest claim in
		// flight, so a chain is walked at the host's pace. A first
		// visit's copy goes too: until its pass the list says the page
		// has none (to the other spiders, status, a restart), and a
		// paced spider's batch may take many seconds to finish. So do
		// pages never visited that a full batch kept a pass from
		// claiming (afterPass). So do a hub's announcements and guesses
		// (announce), and the guesses of a page found gone or that
		// dropped links (guessLinkers): until their pass no spider
		// knows of them, and an announced page is promised within a
		// fast window, which the flush interval (up to 10 s) may be a
		// good part of.
		if s.news && now.Sub(s.lastPass) >= s.spacing {
			return true
		}
		// Lines fetched ahead before it went off still wait for a claim.
		return (s.results > 0 || s.q.open > 0) && s.results >= s.inflight
	}
	// Spacing leaves the workers the machine while they fetch; once they
	// have nothing left to fetch, they wait for this pass.
	if now.Sub(s.lastPass) < s.spacing && s.q.queued > 0 {
		return false
	}
	return s.results > 0 || s.q.open > 0
}

// wakeAt returns when due may become true with no other event: the end
// of an idle wait, of the spacing (if still fetching ahead, or if news
// waits), or of the flush interval; zero if no such time. Once the
// spacing is over, only an event can make a pass due.
func (s passClock) wakeAt(now time.Time) time.Time {
	if !s.idleUntil.IsZero() {
		return s.idleUntil
	}
	var at time.Time
	if spaced := s.lastPass.Add(s.spacing); (s.q.ahead && s.q.queued > 0 || !s.q.ahead && s.news) && spaced.After(now) {
		at = spaced
	}
	if s.results > 0 {
		if f := s.lastPass.Add(s.flush); at.IsZero() || f.Before(at) {
			at = f
		}
	}
	return at
}
