package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/list"
)

// A worker takes a line of a paced host only once the turn of the worker
// waiting for that host has come: the page never visited that a pass
// claims meanwhile goes before the refreshes claimed earlier, and a line
// of another host is taken at once.
func TestPacedHostJobChosenAtItsTurn(t *testing.T) {
	r := testRun(t)
	r.jobs.ahead.set(false)
	r.jobs.paced = func(host string) bool { return host != "free" }
	refresh := func(u string) job {
		return job{en: list.Entry{URL: u, Level: 1, State: list.Downloaded, Modified: time.Unix(1, 0)}}
	}
	r.jobs.addClaimed([]job{refresh("http://h/r1"), refresh("http://h/r2"), refresh("http://h/r3"), refresh("http://free/x")}, nil, nil, nil)
	first, _ := r.jobs.take()
	if first.en.URL != "http://h/r1" || first.turn == nil {
		t.Fatalf("took %s (turn %v), want /r1 waiting for its turn", first.en.URL, first.turn)
	}
	other, _ := r.jobs.take()
	if other.en.URL != "http://free/x" || other.turn != nil {
		t.Fatalf("took %s (turn %v), want the unpaced host's line, which waits for no turn", other.en.URL, other.turn)
	}
	r.jobs.mu.Lock()
	j, ok := r.jobs.next()
	r.jobs.mu.Unlock()
	if ok {
		t.Fatalf("took %s while a worker waits for its host's turn", j.en.URL)
	}
	// The pass after the chain's last page claims the next one.
	r.jobs.addClaimed([]job{{en: list.Entry{URL: "http://h/chain/2", Level: 9, State: list.Found}}}, nil, nil, nil)
	first.turn.came()
	first.turn.came() // again once the fetch is done: no effect
	next, _ := r.jobs.take()
	if next.en.URL != "http://h/chain/2" {
		t.Errorf("at the turn a worker took %s, want the page never visited claimed since", next.en.URL)
	}
	r.jobs.mu.Lock()
	_, ok = r.jobs.next()
	r.jobs.mu.Unlock()
	if ok {
		t.Error("a second worker took a line of the host while one waits for its turn")
	}
	next.turn.came()
	if got := takeURLs(t, r, 1); got[0] != "/r2" {
		t.Errorf("then %q, want /r2", got)
	}
}

// chainSite serves a home page linking refresh pages and, once chain is
// set, a chain of pages each linking only the next; it records the order
// of the requests.
type chainSite struct {
	mu     sync.Mutex
	chain  int // pages in the chain; 0: the home page links none
	refs   int
	served []string
}

func (s *chainSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served = append(s.served, r.URL.Path)
	var b strings.Builder
	switch p := r.URL.Path; {
	case p == "/":
		for i := range s.refs {
			fmt.Fprintf(&b, `<a href="/r/%d">r</a>`, i)
		}
		if s.chain > 0 {
			b.WriteString(`<a href="/chain/1">older</a>`)
		}
	case strings.HasPrefix(p, "/chain/"):
		var k int
		fmt.Sscanf(p, "/chain/%d", &k)
		if k < s.chain {
			fmt.Fprintf(&b, `<a href="/chain/%d">older</a>`, k+1)
		}
	case p == "/robots.txt":
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><body>%s</body></html>", b.String())
}

// A paced spider walks a chain of "older posts" pages, each claimed once
// the page before it was fetched, at the host's pace while refreshes
// claimed earlier wait: each workers' turn at the host no longer goes to
// the line the worker happened to take before the chain's next page was
// claimed. Before, with 8 workers each holding a refresh while it waited
// for the host's turn, every page of the chain waited behind 7 of them.
func TestPacedChainPassesRefreshes(t *testing.T) {
	const refs, chain, workers = 120, 10, 8
	site := &chainSite{refs: refs}
	srv := httptest.NewServer(site)
	defer srv.Close()
	l, m, _ := openListMirror(t)
	var offset time.Duration
	run := func(delay time.Duration) {
		t.Helper()
		e := New(Config{
			Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 500},
			Starts: []string{srv.URL + "/"}, Concurrency: workers, Delay: delay, Lease: time.Minute, UntilIdle: true,
			Flush: 50 * time.Millisecond, Now: func() time.Time { return time.Now().Add(offset) },
		}, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := e.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	run(0)
	site.mu.Lock()
	site.chain, site.served = chain, nil
	site.mu.Unlock()
	offset = 2 * time.Hour // every copy is due again
	run(40 * time.Millisecond)
	site.mu.Lock()
	served := site.served
	site.mu.Unlock()
	at := map[string]int{}
	for i, p := range served {
		at[p] = i
	}
	between := 0
	for k := 1; k < chain; k++ {
		a, okA := at[fmt.Sprintf("/chain/%d", k)]
		b, okB := at[fmt.Sprintf("/chain/%d", k+1)]
		if !okA || !okB {
			t.Fatalf("chain pages %d and %d not both fetched: %v", k, k+1, served)
		}
		between += b - a - 1
	}
	refreshed := 0
	for _, p := range served[at["/chain/"+fmt.Sprint(chain)]:] {
		if strings.HasPrefix(p, "/r/") {
			refreshed++
		}
	}
	t.Logf("%d requests between the chain's %d steps; %d refreshes after its end", between, chain-1, refreshed)
	if refreshed == 0 {
		t.Fatal("the refreshes ran out before the chain's end: nothing to tell")
	}
	// Each step waits for the turn of the worker already waiting, and
	// for turns that pass while the pass claims the next page; never for
	// a turn of every worker.
	if limit := 3 * (chain - 1); between > limit {
		t.Errorf("%d requests between the chain's pages, want at most %d", between, limit)
	}
}

// While pages never visited wait unclaimed, a pass hands back the
// refreshes claimed before them that no worker has taken, and claims in
// their room: a paced spider's batch of refreshes no longer keeps the
// next page of a chain waiting until it is fetched. A start page due at
// its interval and a page announced changed stay claimed, as the policy
// takes them while first visits wait.
func TestBacklogHandsBackQueuedRefreshes(t *testing.T) {
	r := testRun(t)
	r.jobs.ahead.set(false)
	now := time.Now()
	old := now.Add(-2 * time.Hour)
	entry := func(u string, level int) list.Entry {
		return list.Entry{URL: "http://h" + u, Level: level, State: list.Downloaded, Modified: old, Spider: "slow"}
	}
	hinted := entry("/hinted", 1)
	hinted.Due = old // a hint: due no later than the copy
	var js []job
	for _, en := range []list.Entry{entry("/", 0), entry("/r1", 2), entry("/r2", 3), hinted} {
		js = append(js, job{en: en})
		r.inflight[en.URL] = claimedLine{}
	}
	r.jobs.addClaimed(js, nil, nil, nil)
	r.backlog = true
	c, _, _ := r.cycle()
	var back []string
	for _, res := range c.Results {
		if res.State != 0 {
			t.Errorf("result %+v, want the line returned unfetched", res)
		}
		back = append(back, strings.TrimPrefix(res.URL, "http://h"))
	}
	if strings.Join(back, " ") != "/r1 /r2" {
		t.Errorf("handed back %q, want the two refreshes", back)
	}
	if k, ok := c.Pick.(*claim.Picker); !ok || k.Max() != 10-2 {
		t.Errorf("picker %T claims %d, want room for all but the two lines still queued (8)", c.Pick, c.Pick.Max())
	}
	if got := takeURLs(t, r, 2); strings.Join(got, " ") != "/ /hinted" {
		t.Errorf("queued %q, want the start page and the announced page", got)
	}
	// Without a backlog the refreshes stay.
	r = testRun(t)
	r.jobs.addClaimed([]job{{en: entry("/r1", 2)}}, nil, nil, nil)
	r.inflight["http://h/r1"] = claimedLine{}
	if c, _, _ := r.cycle(); len(c.Results) != 0 {
		t.Errorf("handed back %v with no page never visited waiting", c.Results)
	}
}

// Pages never visited that another spider holds make a backlog as those
// no spider holds do: a spider's early refreshes took half the host's
// turns while another spider's first visits (the pages an archive chain
// leads to) waited for them. So do the spider's own, in
// flight or claimed by the pass: once the pass that claimed the next page
// of a chain left no page unvisited, the next claimed a batch of
// refreshes, which took every other turn from the chain.
func TestBacklogCountsOthersFirstVisits(t *testing.T) {
	now := time.Now()
	first := list.Entry{URL: "http://h/first", Level: 9, State: list.Found}
	refresh := list.Entry{URL: "http://h/r", Level: 2, State: list.Downloaded, Modified: now.Add(-time.Hour)}
	for _, tc := range []struct {
		name                 string
		unvisited, elsewhere int
		inFlight, claimed    []list.Entry
		want                 bool
	}{
		{"none", 0, 0, nil, nil, false},
		{"unclaimed", 2, 0, nil, nil, true},
		{"held by others", 0, 3, nil, nil, true},
		{"own in flight", 0, 0, []list.Entry{refresh, first}, nil, true},
		{"own claimed by the pass", 0, 0, nil, []list.Entry{first}, true},
		{"refreshes in flight and claimed", 0, 0, []list.Entry{refresh}, []list.Entry{{URL: "http://h/r2", Level: 1, Modified: now}}, false},
	} {
		r := testRun(t)
		for _, en := range tc.inFlight {
			r.inflight[en.URL] = claimedLine{first: en.Modified.IsZero()}
		}
		c := &list.Cycle{Now: now, Claimed: tc.claimed}
		c.Stats.Unvisited, c.Stats.FirstElsewhere = tc.unvisited, tc.elsewhere
		r.afterPass(passResult{c: c})
		if r.backlog != tc.want {
			t.Errorf("%s: backlog %v, want %v", tc.name, r.backlog, tc.want)
		}
	}
}

// A pass that applied the backlog's rule (first visits before refreshes)
// and so claimed nothing, after which no page waits for its first visit
// any more, is followed by a pass at once: the refreshes it held back are
// due now, and a spider that slept its idle wait instead would leave the
// host's budget unspent each time the site grew by a page. A spider whose
// pass claimed nothing under the same rule as it will apply next sleeps
// as before. A pass after which pages never visited wait unclaimed, while
// refreshes it or an earlier pass claimed wait for a worker, is followed
// by a pass at once too: the pass that found the next page of a chain of
// "older posts" had its batch full of refreshes, and the page waited 2.7 s
// for them at 20 requests a second.
func TestBacklogEndedPassesAgain(t *testing.T) {
	for _, tc := range []struct {
		name                                 string
		untilIdle, before, unvisited, queued bool
		wantIdle, wantAgain                  bool
		firstQueued                          bool // the line queued is a first visit, not a refresh
	}{
		{"backlog ended", false, true, false, false, false, true, false},
		{"backlog goes on", false, true, true, false, true, false, false},
		{"no backlog either time", false, false, false, false, true, false, false},
		{"backlog began", false, false, true, false, true, false, false},
		// A spider that stops when idle does not stop then either.
		{"backlog ended, until idle", true, true, false, false, false, true, false},
		// Refreshes claimed before the pages never visited were found
		// wait for a worker: the next pass hands them back and claims
		// the pages in their room, at once.
		{"backlog began, refreshes queued", false, false, true, true, false, true, false},
		{"backlog goes on, refreshes queued", false, true, true, true, false, false, false},
		{"no backlog, refreshes queued", false, false, false, true, false, false, false},
		// Only first visits wait: nothing to hand back, no pass at once.
		{"backlog began, first visits queued", false, false, true, true, false, false, true},
	} {
		r := testRun(t)
		r.jobs.ahead.set(false)
		r.e.cfg.UntilIdle = tc.untilIdle
		r.backlog = tc.before
		if tc.queued {
			en := list.Entry{URL: "http://h/r", Level: 2, State: list.Claimed, Modified: time.Now().Add(-2 * time.Hour), Spider: "slow"}
			if tc.firstQueued {
				en.State, en.Modified = list.Claimed, time.Time{}
			}
			r.jobs.addClaimed([]job{{en: en}}, nil, nil, nil)
			r.inflight[en.URL] = claimedLine{}
		}
		c := &list.Cycle{Now: time.Now(), Pick: &claim.Picker{P: r.e.cfg.Profile, Now: time.Now(), Backlog: tc.before}}
		if tc.unvisited {
			c.Stats.Unvisited = 1
		}
		r.afterPass(passResult{c: c})
		if r.over {
			t.Errorf("%s: the run is over", tc.name)
			continue
		}
		if idle := !r.idleUntil.IsZero(); idle != tc.wantIdle {
			t.Errorf("%s: idle until %v, want idle %v", tc.name, r.idleUntil, tc.wantIdle)
		}
		// At once: as soon as the passes' spacing allows, a time the
		// loop wakes for (wakeAt).
		at := r.lastPass.Add(r.spacing)
		if w := r.wakeAt(time.Now()); tc.queued && tc.wantAgain && !w.Equal(at) {
			t.Errorf("%s: the loop wakes at %v, want %v", tc.name, w, at)
		}
		if again := r.passDue(at); again != tc.wantAgain {
			t.Errorf("%s: pass due at once %v, want %v", tc.name, again, tc.wantAgain)
		}
	}
}
