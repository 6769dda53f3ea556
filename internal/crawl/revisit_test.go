package crawl

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/change"
	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// A visit sets the line's due from the change model: at first none for a
// page (the windows decide) and the slow window for an image; a page seen not to
// change is given longer and longer; one seen to change, shorter.
func TestRevisitSetsDue(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Profile.Longest, c.RequisiteEvery = 24*time.Hour, 24*time.Hour }
	v.site.set("/", 200, `<a href="/a">a</a><img src="/i.png">`)
	v.site.set("/a", 200, "a")
	v.site.set("/i.png", 200, "png")
	v.crawl(t, time.Hour)
	page, img := v.line(t, v.base+"/a"), v.line(t, v.base+"/i.png")
	if !page.Due.IsZero() {
		t.Errorf("page visited once due %v: want none, the windows decide", page.Due)
	}
	if d, want := img.Due.Sub(img.Modified), jittered(img.URL, v.clock, 24*time.Hour, time.Hour); d != want {
		t.Errorf("image due %v after its copy, want the slow window jittered over the shortest (the window): %v", d, want)
	}
	// Visited again 2h later, unchanged: the interval grows past the window.
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	a := v.line(t, v.base+"/a")
	rec := v.history(t, "/a")
	if rec.Checks != 1 || rec.Changes != 0 || len(rec.Visits) != 1 {
		t.Fatalf("history after an unchanged visit: checks %d changes %d visits %v", rec.Checks, rec.Changes, rec.Visits)
	}
	if d := a.Due.Sub(a.Modified); d < 2*time.Hour {
		t.Errorf("unchanged page due %v after its copy, want at least 2h (4h jittered)", d)
	}
	// It changes at each of the next visits: the interval shrinks.
	for i := range 3 {
		v.clock = v.clock.Add(5 * 24 * time.Hour)
		v.site.set("/a", 200, "a, edit "+string(rune('1'+i)))
		v.crawl(t, time.Hour)
	}
	rec = v.history(t, "/a")
	if rec.Changes != 3 {
		t.Fatalf("changes %d, want 3", rec.Changes)
	}
	a2 := v.line(t, v.base+"/a")
	if mean := change.Interval(rec.Visits, time.Hour); mean > 3*24*time.Hour ||
		a2.Due.Sub(a2.Modified) != jittered(a2.URL, a2.Modified, mean, time.Hour) {
		t.Errorf("page changed at each 5-day visit: mean interval %v (want under 3 days), due %v after its copy", mean, a2.Due.Sub(a2.Modified))
	}
}

// A hub that bumps a link to its top hints the list that the page
// changed; the links that merely follow are not hinted.
func TestHubAnnouncesBump(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>`)
	for _, p := range []string{"/a", "/b", "/c"} {
		v.site.set(p, 200, p)
	}
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour)
	v.site.set("/", 200, `<a href="/c">c, edited</a><a href="/a">a</a><a href="/b">b</a>`)
	v.cfg = func(c *Config) { c.Profile.MaxLevel = 0 } // only the hub is visited
	v.crawl(t, time.Hour)
	if c := v.line(t, v.base+"/c"); !c.Hinted() {
		t.Errorf("bumped link not hinted: %+v", c)
	}
	for _, p := range []string{"/a", "/b"} {
		if e := v.line(t, v.base+p); e.Hinted() {
			t.Errorf("%s hinted, it only moved down: %+v", p, e)
		}
	}
	if rec := v.history(t, "/"); rec.Links == "" {
		t.Error("the hub's link order was not kept")
	}
}

// A change travels down the listings: when a page's links change, the
// deeper pages it links whose own links changed at one of their latest
// visits are hinted with what it announces, as guesses (marked "~" here),
// not news; a page whose links never changed is not, nor one whose links
// stayed the same at its last listingMemory visits, nor a listing above
// it, nor the page itself. A hint is in whole seconds, as the list's
// times. What makes a page a listing is in its history, whichever spider
// visited it: the records here are the history the pass reads.
func TestListingsHintListings(t *testing.T) {
	e := &Engine{navs: &navigation{}}
	now := time.Date(2026, 11, 21, 12, 0, 0, 5e8, time.UTC)
	recs := map[string]meta.Record{} // each page's history after its visit before
	visit := func(url string, level int, pages ...string) []string {
		o := &outcome{job: job{en: list.Entry{URL: url, Level: level}, rec: recs[url]}}
		for _, p := range pages {
			o.adds = append(o.adds, list.Add{URL: p, Level: level + 1})
		}
		rec := recs[url]
		e.announce(o, &rec, pages, now)
		rec.URL = url
		recs[url] = rec
		o.guesses = listingGuesses(o.listed, recs)
		var hinted []string
		check := func(a list.Add, mark string) {
			if a.Hint.IsZero() {
				return
			}
			hinted = append(hinted, mark+a.URL)
			if want := now.Truncate(time.Second); !a.Hint.Equal(want) {
				t.Errorf("%s hinted at %v, want the whole second %v", a.URL, a.Hint, want)
			}
		}
		for _, a := range o.adds {
			check(a, "")
		}
		for _, a := range o.guesses {
			if a.Level != level+1 {
				t.Errorf("guess %s at level %d, want %d", a.URL, a.Level, level+1)
			}
			check(a, "~")
		}
		return hinted
	}
	steps := []struct {
		name  string
		url   string
		level int
		pages []string
		want  []string
	}{
		{"home, first visit", "/", 0, []string{"/s/", "/t/", "/a1"}, nil},
		{"section s, first visit", "/s/", 1, []string{"/", "/a1"}, nil},
		{"section t, first visit", "/t/", 1, []string{"/", "/b1"}, nil},
		{"s lists a new article", "/s/", 1, []string{"/", "/a2", "/a1"}, []string{"/a2"}},
		{"t, its links as before", "/t/", 1, []string{"/", "/b1"}, nil},
		{"home announces it: s, a listing, is hinted; t is not", "/", 0, []string{"/s/", "/t/", "/a2", "/a1"}, []string{"/a2", "~/s/"}},
		{"s lists another: not home, a listing above it", "/s/", 1, []string{"/", "/a3", "/a2", "/a1"}, []string{"/a3"}},
		{"home, its links as before", "/", 0, []string{"/s/", "/t/", "/a2", "/a1"}, nil},
		{"s, linking itself: not itself", "/s/", 1, []string{"/s/", "/", "/a4", "/a3", "/a2", "/a1"}, []string{"/a4"}},
		{"s, its links as before: it hints nothing", "/s/", 1, []string{"/s/", "/", "/a4", "/a3", "/a2", "/a1"}, nil},
		{"home announces another: s, the same at one visit, is still a listing", "/", 0, []string{"/s/", "/t/", "/a5", "/a2", "/a1"}, []string{"/a5", "~/s/"}},
	}
	for _, st := range steps {
		if got := visit(st.url, st.level, st.pages...); !slices.Equal(got, st.want) {
			t.Errorf("%s: hinted %v, want %v", st.name, got, st.want)
		}
	}
	sVisit := func() { visit("/s/", 1, "/s/", "/", "/a4", "/a3", "/a2", "/a1") }
	for range listingMemory - 2 {
		sVisit()
	}
	if got := visit("/", 0, "/s/", "/t/", "/a6", "/a2", "/a1"); !slices.Equal(got, []string{"/a6", "~/s/"}) {
		t.Errorf("home announces another after s's links stayed the same at %d visits: hinted %v, want [/a6 ~/s/]", listingMemory-1, got)
	}
	sVisit()
	if got := visit("/", 0, "/s/", "/t/", "/a7", "/a2", "/a1"); !slices.Equal(got, []string{"/a7"}) {
		t.Errorf("home announces another after s's links stayed the same at %d visits: hinted %v, want [/a7]", listingMemory, got)
	}
}

// The pass that follows a hub whose links changed hints the listings it
// links by their history, whoever visited them: here another spider's
// visits (records in the shared store) made /s/ a listing at level 1, and
// /t/ one that is no more; /u/ is a listing only at the hub's own level;
// this spider's own visit that made /w/ a listing is not stored yet (its
// record waits for the pass). Each listing is hinted once, as a guess,
// however many hubs linked it. The pass is run as the loop runs it
// (startPass).
func TestListingsFromSharedHistory(t *testing.T) {
	r := testRun(t)
	at := time.Now().Truncate(time.Second)
	const s, tt, u, w, a = "http://h/s/", "http://h/t/", "http://h/u/", "http://h/w/", "http://h/a1"
	err := r.hist.store.Put([]meta.Record{
		{URL: s, Listing: 2, ListingLevel: 1}, {URL: tt, Listing: 0, ListingLevel: 0},
		{URL: u, Listing: listingMemory, ListingLevel: 1}, {URL: a, Checksum: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	r.history = []meta.Record{{URL: w, Listing: listingMemory, ListingLevel: 1}}
	cands := func(hub int, urls ...string) []candidate {
		var out []candidate
		for _, x := range urls {
			out = append(out, candidate{add: list.Add{URL: x, Level: hub + 1, Hint: at}, hub: hub})
		}
		return out
	}
	r.jobs.found(&outcome{job: job{en: list.Entry{URL: "http://h/", Level: 0}}, listed: cands(0, s, tt, w, a)}, -1, 0)
	r.jobs.found(&outcome{job: job{en: list.Entry{URL: "http://h/x/", Level: 0}}, listed: cands(0, s)}, -1, 0)
	r.jobs.found(&outcome{job: job{en: list.Entry{URL: "http://h/v/", Level: 1}}, listed: cands(1, u)}, -1, 0)
	r.startPass()
	p := <-r.passDone
	if p.err != nil {
		t.Fatal(p.err)
	}
	var got []string
	for _, x := range p.c.Add {
		if x.Hint.Equal(at) {
			got = append(got, x.URL)
		}
	}
	if want := []string{s, w}; !slices.Equal(got, want) {
		t.Errorf("the pass hints %v, want %v alone", got, want)
	}
	if !slices.Equal(p.guesses, p.c.Add[len(p.c.Add)-2:]) {
		t.Errorf("the pass's guesses %v are not the last of its adds %v", p.guesses, p.c.Add)
	}
}

// A listing whose copy a revisit found current (answered 304, or the same
// body again) has its links as before: the visit counts as one that found
// them unchanged (listingMemory of those in a row end a listing).
func TestCurrentCopyCountsUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name, etag string
		notMod     int // 304 answers
	}{
		{"answered 304", `"s1"`, 1},
		{"the same body again", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newEnv(t)
			v.site.set("/", 200, `<a href="/s/">s</a>`)
			v.site.set("/s/", 200, `<a href="/a1">a1</a>`)
			v.site.set("/a1", 200, "a1")
			v.site.etag["/s/"] = tc.etag
			v.crawl(t, time.Hour)
			v.clock = v.clock.Add(2 * time.Hour)
			e := v.engine()
			e.beat(v.clock) // the claim's lease is fresh
			u := v.base + "/s/"
			rec := v.history(t, "/s/")
			rec.Listing, rec.ListingLevel = listingMemory, 1
			o := e.process(context.Background(), context.Background(), job{en: v.line(t, u), epoch: e.lease.current(), rec: rec})
			if o.count.Unchanged != 1 || o.res.State != list.Downloaded {
				t.Fatalf("outcome %+v, %+v: want the copy found current", o.res, o.count)
			}
			if got := v.site.notMod["/s/"]; got != tc.notMod {
				t.Errorf("%d answers 304, want %d", got, tc.notMod)
			}
			if o.rec.Listing != listingMemory-1 || o.rec.ListingLevel != 1 {
				t.Errorf("after a visit that found its copy current: listing %d at level %d, want %d at level 1", o.rec.Listing, o.rec.ListingLevel, listingMemory-1)
			}
		})
	}
}

// announceB crawls a site whose hub links /a and /b, revisits both
// unchanged 2h later, and 2h after that has the hub (alone visited) bump
// /b, edited: /b is announced at the returned time.
func announceB(t *testing.T) (*env, time.Time) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a><a href="/b">b</a>`)
	v.site.set("/a", 200, "a")
	v.site.set("/b", 200, "b")
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour)
	v.site.set("/", 200, `<a href="/b">b, edited</a><a href="/a">a</a>`)
	v.site.set("/b", 200, "b, edited")
	v.cfg = func(c *Config) { c.Profile.MaxLevel = 0 } // only the hub is visited
	v.crawl(t, time.Hour)
	return v, v.clock
}

// The pages a hub announces get the announcement in their history, and
// the visit that follows measures how long they took to reach the mirror
// (meta.Record.Lag, which spider status reports).
func TestHubAnnouncementMeasuresLag(t *testing.T) {
	v, announced := announceB(t)
	if rec := v.history(t, "/b"); !rec.Announced.Equal(announced) {
		t.Fatalf("announced page's record: announced %v, want %v", rec.Announced, announced)
	}
	if rec := v.history(t, "/a"); !rec.Announced.IsZero() {
		t.Errorf("a link that only moved down was recorded announced: %v", rec.Announced)
	}
	v.clock = v.clock.Add(10 * time.Minute)
	v.cfg = func(c *Config) { c.Profile.MaxLevel = 1 }
	v.crawl(t, time.Hour)
	rec := v.history(t, "/b")
	if rec.Lag != 10*time.Minute || !rec.Announced.IsZero() {
		t.Errorf("after the visit: lag %v, announced %v; want 10m and none", rec.Lag, rec.Announced)
	}
}

// A visit that an announcement brought and that found the change counts
// as a change caught, but the change model does not learn from it: its
// visits are as before, so its revisits are not hurried (change.Heard).
func TestAnnouncedChangeTeachesNothing(t *testing.T) {
	v, _ := announceB(t)
	before := v.history(t, "/b")
	if len(before.Visits) != 1 || before.Changes != 0 {
		t.Fatalf("before the announced page's visit: visits %v, changes %d; want the unchanged revisit", before.Visits, before.Changes)
	}
	v.clock = v.clock.Add(10 * time.Minute)
	v.cfg = func(c *Config) { c.Profile.MaxLevel = 1 }
	v.crawl(t, time.Hour)
	rec := v.history(t, "/b")
	if rec.Checks != before.Checks+1 || rec.Changes != 1 || !rec.Announced.IsZero() {
		t.Fatalf("announced change not counted as caught: checks %d changes %d announced %v", rec.Checks, rec.Changes, rec.Announced)
	}
	if !slices.Equal(rec.Visits, before.Visits) {
		t.Errorf("the model learnt from an announced change: visits %v, want %v", rec.Visits, before.Visits)
	}
}

// A page seen twice a few seconds apart without a change (announced by
// one hub after another) has no history yet (change.Known): it is
// scheduled as after its first visit, not polled again and again while
// the time watched doubles. Its prior is the window, or a listing's share
// of it from its links at this visit or, when the visit parsed none (a
// 304), at the visit before; a start page is due at shortest. Watched
// long enough, the model takes over.
func TestQuickRevisitsAreNoHistory(t *testing.T) {
	const start, window, shortest = "http://s/", time.Hour, 10 * time.Minute
	e := &Engine{navs: &navigation{}}
	e.cfg.Profile = claim.Profile{Window: window, Shortest: shortest}
	e.navs.set(start, change.Links([]string{"http://s/about", "http://s/news/"}))
	listing := []string{start, "http://s/about", "http://s/news/", "http://s/a/1", "http://s/a/2", "http://s/a/3"}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	next := func(url string, mean time.Duration) time.Time { return change.Next(url, now, nil, mean, shortest) }
	tests := []struct {
		name  string
		level int
		after time.Duration // since the visit before, which saw no change either
		links string        // kept at the visit before
		pages []string      // parsed at this visit
		want  func(url string) time.Time
	}{
		{"an article", 1, 5 * time.Second, "", nil, func(string) time.Time { return time.Time{} }},
		{"a listing, parsed now", 1, 5 * time.Second, "", listing, func(u string) time.Time { return next(u, window*4/7) }},
		{"a listing answering 304", 1, 5 * time.Second, change.Links(listing), nil, func(u string) time.Time { return next(u, window*4/7) }},
		{"a start page", 0, 5 * time.Second, "", nil, func(string) time.Time { return now.Add(shortest) }},
		{"an article watched for an hour", 1, time.Hour, "", nil, func(u string) time.Time {
			return change.Next(u, now, []meta.Visit{{After: 3600}}, window, shortest)
		}},
	}
	for _, tt := range tests {
		url := "http://s/" + strconv.Itoa(len(tt.name))
		o := &outcome{job: job{en: list.Entry{URL: url, Level: tt.level}, rec: meta.Record{LastOK: now.Add(-tt.after), Links: tt.links}}}
		rec := o.job.rec
		e.revisit(o, &rec, false, tt.pages, now)
		if len(rec.Visits) != 1 {
			t.Fatalf("%s: visits %v, want the one observed", tt.name, rec.Visits)
		}
		if want := tt.want(url); !o.res.Due.Equal(want) {
			t.Errorf("%s: due %v, want %v", tt.name, o.res.Due, want)
		}
	}
}

// A start page whose "latest" list moves faster than shortest is polled
// sooner: when about half the list will have been replaced at the rate
// the last two polls saw (change.PollAfter), never sooner than the delay
// allows fetching what the poll announced and the next poll. A quiet poll
// lets the next come twice as late, back to the model's if the page was
// not polled sooner before. With no delay, a poll that found the links
// changed is followed by one when the model expects the next change,
// within the same bounds. Other pages keep their model's due.
func TestStartPagePolledSooner(t *testing.T) {
	const start, shortest, ms = "http://s/", 10 * time.Minute, time.Millisecond
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	page := func(latest ...string) []string {
		return append(append([]string{start, "http://s/about"}, latest...), "http://s/news/")
	}
	five := page("http://s/a", "http://s/b", "http://s/c", "http://s/d", "http://s/e")
	three := page("http://s/n", "http://s/m", "http://s/k", "http://s/a", "http://s/b") // three of five replaced
	tests := []struct {
		name      string
		level     int
		delay     time.Duration // the spider's
		crawl     time.Duration // the host's Crawl-delay
		after     time.Duration // since the poll before
		scheduled time.Duration // the interval the poll came at; 0: by its model
		pages     []string      // nil: a 304
		want      time.Duration // from now; 0: the model's (shortest here); -1: the model's mean time between changes
	}{
		{"three of five replaced in 5m: again in 4m10s", 0, ms, 0, 5 * time.Minute, 0, three, 5 * time.Minute * 5 / 6},
		{"the delay allows no sooner than 4 requests", 0, 2 * time.Minute, 0, 5 * time.Minute, 0, three, 8 * time.Minute},
		{"the Crawl-delay too", 0, ms, 2 * time.Minute, 5 * time.Minute, 0, three, 8 * time.Minute},
		{"a slow list: shortest", 0, ms, 0, 20 * time.Minute, 0, three, 0},
		{"a quiet poll after one sooner: twice as late", 0, ms, 0, 2 * time.Minute, 2 * time.Minute, five, 4 * time.Minute},
		{"a 304 after one sooner: twice as late", 0, ms, 0, 2 * time.Minute, 2 * time.Minute, nil, 4 * time.Minute},
		{"a quiet poll soon after another: the model", 0, ms, 0, 5 * time.Second, 0, five, 0},
		{"not a start page", 1, ms, 0, 5 * time.Minute, 0, three, 0},
		// With no delay, a poll that found its links changed is
		// followed by one when the model expects the next change;
		// one that did not, as with a delay.
		{"no delay, links changed: the model's mean", 0, 0, 0, 5 * time.Minute, 0, three, -1},
		{"no delay, a slow list: the model's mean", 0, 0, 0, 20 * time.Minute, 0, three, -1},
		{"no delay, the Crawl-delay allows no sooner than 4 requests", 0, 0, 2 * time.Minute, 5 * time.Minute, 0, three, 8 * time.Minute},
		{"no delay, a quiet poll after one sooner: twice as late", 0, 0, 0, 2 * time.Minute, 2 * time.Minute, five, 4 * time.Minute},
		{"no delay, a 304 after one sooner: twice as late", 0, 0, 0, 2 * time.Minute, 2 * time.Minute, nil, 4 * time.Minute},
		{"no delay, a quiet poll soon after another: the model", 0, 0, 0, 5 * time.Second, 0, five, 0},
		{"no delay, not a start page", 1, 0, 0, 5 * time.Minute, 0, three, 0},
	}
	for _, tt := range tests {
		e := &Engine{navs: &navigation{}, obs: &observations{}}
		e.cfg.Profile, e.cfg.Delay = claim.Profile{Window: time.Hour, Shortest: shortest}, tt.delay
		e.polite = newPoliteness(Config{Delay: tt.delay}, "")
		if tt.crawl > 0 {
			e.polite.crawl[hostOf(start)] = tt.crawl
		}
		url := start
		if tt.level > 0 {
			url = "http://s/list"
		}
		before := now.Add(-tt.after)
		en := list.Entry{URL: url, Level: tt.level, Modified: before}
		if tt.scheduled > 0 {
			en.Due = before.Add(tt.scheduled)
		}
		// Seen to change at every visit, a minute apart: a hub, due at
		// shortest by its model.
		visits := []meta.Visit{{After: 60, Changed: true}, {After: 60, Changed: true}, {After: 60, Changed: true}}
		o := &outcome{job: job{en: en, rec: meta.Record{LastOK: before, Links: change.Links(five), Visits: visits}}}
		rec := o.job.rec
		e.revisit(o, &rec, true, tt.pages, now)
		want := tt.want
		switch want {
		case 0:
			want = shortest
		case -1:
			want = change.Interval(rec.Visits, time.Hour)
			if want < time.Second || want >= 5*time.Minute*5/6 {
				t.Fatalf("%s: the model's mean %v, want one sooner than the list's turnover", tt.name, want)
			}
		}
		if got := o.res.Due.Sub(now); got != want {
			t.Errorf("%s: due in %v, want %v", tt.name, got, want)
		}
	}
}

// With no delay, a start page whose poll found a link moved up but none
// gone (no turnover), polled at its model's time before, keeps its
// model's due when the model expects no change sooner than shortest: the
// "twice as late" rule is for a page polled sooner.
func TestStartPageMovedLinkKeepsModel(t *testing.T) {
	const start, shortest = "http://s/", 10 * time.Minute
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	page := func(latest ...string) []string {
		return append(append([]string{start, "http://s/about"}, latest...), "http://s/news/")
	}
	before := now.Add(-5 * time.Second)
	e := &Engine{navs: &navigation{}, obs: &observations{}}
	e.cfg.Profile = claim.Profile{Window: time.Hour, Shortest: shortest}
	e.polite = newPoliteness(Config{}, "")
	// Seen to change once in a day of hourly visits.
	visits := []meta.Visit{{After: 3600, Changed: true}}
	for range 23 {
		visits = append(visits, meta.Visit{After: 3600})
	}
	prev := page("http://s/a", "http://s/b", "http://s/c")
	o := &outcome{job: job{en: list.Entry{URL: start, Modified: before}, rec: meta.Record{LastOK: before, Links: change.Links(prev), Visits: visits}}}
	rec := o.job.rec
	e.revisit(o, &rec, true, page("http://s/b", "http://s/a", "http://s/c"), now)
	if want := change.Next(start, now, rec.Visits, time.Hour, shortest); !o.res.Due.Equal(want) || o.res.Due.Sub(now) < shortest {
		t.Errorf("due in %v, want the model's, %v", o.res.Due.Sub(now), want.Sub(now))
	}
}

// A spider with a polite delay that is not told to stop when idle spends
// its spare budget on copies past half their interval, unless its profile
// has a level limit: the spider without one does that at every level,
// and the host's turns a fast spider spent so were taken from the slow
// spider's due work. One without a delay also takes every page by its
// profile's shortest interval (from a point drawn between half of it and
// all of it: claim.UnpacedWait; as early, whatever the interval), but
// an image only as early; with --until-idle either takes only what is
// due.
func TestEarlyRefresh(t *testing.T) {
	tests := []struct {
		name      string
		delay     time.Duration
		untilIdle bool
		after     time.Duration // since the first visit, of a one-hour window, shortest 20m
		want      bool
		image     bool // the line is /a.png, presumed to change once a day (RequisiteEvery): due from half an hour
		limited   bool // the profile has a level limit (3)
	}{
		{"delay, past half the window", 5 * time.Millisecond, false, 40 * time.Minute, true, false, false},
		{"delay, before half the window", 5 * time.Millisecond, false, 25 * time.Minute, false, false, false},
		{"delay, past half the window, a level limit", 5 * time.Millisecond, false, 40 * time.Minute, false, false, true},
		{"delay, past the window, a level limit", 5 * time.Millisecond, false, 61 * time.Minute, true, false, true},
		{"no delay, shortest old", 0, false, 25 * time.Minute, true, false, false},
		{"no delay, shortest old, a level limit", 0, false, 25 * time.Minute, true, false, true},
		{"no delay, younger than half of shortest", 0, false, 9 * time.Minute, false, false, false},
		{"no delay, an image shortest old", 0, false, 25 * time.Minute, false, true, false},
		{"no delay, an image past half its interval", 0, false, 40 * time.Minute, true, true, false},
		{"until idle", 5 * time.Millisecond, true, 40 * time.Minute, false, false, false},
		{"no delay, until idle", 0, true, 40 * time.Minute, false, false, false},
	}
	for _, tt := range tests {
		v := newEnv(t)
		a := "/a"
		if tt.image {
			a = "/a.png"
		}
		v.site.set("/", 200, `<a href="`+a+`">a</a>`)
		v.site.set(a, 200, "a")
		v.cfg = func(c *Config) { c.Profile.Shortest, c.RequisiteEvery = 20*time.Minute, 24*time.Hour }
		v.crawl(t, time.Hour)
		before := v.hits(a)
		v.clock = v.clock.Add(tt.after)
		v.cfg = func(c *Config) {
			c.Profile.Shortest, c.RequisiteEvery = 20*time.Minute, 24*time.Hour
			c.Delay, c.UntilIdle, c.MaxCycles = tt.delay, tt.untilIdle, 1
			if tt.limited {
				c.Profile.MaxLevel = 3
			}
		}
		v.crawl(t, time.Hour)
		if got := v.hits(a) > before; got != tt.want {
			t.Errorf("%s: fetched again %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A start page visited once is due again after the profile's shortest
// interval, not its window: what its "latest" list shows may scroll off
// before a window passes. Other pages visited once still have no due.
func TestStartPageFirstRefreshAtShortest(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Profile.Window, c.Profile.Shortest = time.Hour, 20*time.Minute }
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "a")
	v.crawl(t, time.Hour)
	home, page := v.line(t, v.base+"/"), v.line(t, v.base+"/a")
	if d := home.Due.Sub(home.Modified); d != 20*time.Minute {
		t.Errorf("start page visited once due %v after its copy, want the shortest interval, 20m", d)
	}
	if !page.Due.IsZero() {
		t.Errorf("page visited once due %v: want none, the windows decide", page.Due)
	}
}

// A start page that changes at every visit is polled at the shortest
// interval exactly, never later by a jitter: what its "latest" list
// announces must still be listed at the next poll.
func TestChangingStartPagePolledAtShortest(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Profile.Window, c.Profile.Shortest = time.Hour, 20*time.Minute }
	for i := range 6 {
		v.site.set("/", 200, `<a href="/a">a</a> latest: `+strconv.Itoa(i))
		v.site.set("/a", 200, "a")
		v.crawl(t, time.Hour)
		home := v.line(t, v.base+"/")
		if d := home.Due.Sub(home.Modified); d != 20*time.Minute {
			t.Fatalf("visit %d: start page due %v after its copy, want the shortest interval, 20m", i+1, d)
		}
		v.clock = v.clock.Add(20 * time.Minute)
	}
	if rec := v.history(t, "/"); rec.Changes != 5 {
		t.Errorf("start page seen changed %d times, want 5", rec.Changes)
	}
}

// A page whose links at its first visit are mostly its own, not the
// site's navigation (the start page's links), is a listing: it is due
// sooner than the window, by the share of its links that are navigation,
// so that listings are looked at again before articles. An article,
// linking only the navigation, is left to the window.
func TestListingDueSooner(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Profile.Shortest = time.Minute }
	v.site.set("/", 200, `<a href="/about">about</a><a href="/s/">section</a><a href="/a1">latest</a>`)
	v.site.set("/about", 200, `<a href="/">home</a>`)
	v.site.set("/a1", 200, `<a href="/">home</a><a href="/s/">section</a>`)
	v.site.set("/s/", 200, `<a href="/">home</a><a href="/about">about</a><a href="/s/">section</a>`+
		`<a href="/a2">2</a><a href="/a3">3</a><a href="/a4">4</a><a href="/a5">5</a><a href="/a6">6</a>`)
	for _, p := range []string{"/a2", "/a3", "/a4", "/a5", "/a6"} {
		v.site.set(p, 200, `<a href="/">home</a><a href="/about">about</a><a href="/s/">section</a>`)
	}
	v.crawl(t, time.Hour)
	listing := v.line(t, v.base+"/s/")
	prior := time.Hour * 4 / 9 // 3 navigation links of 8, and its own place
	if d, want := listing.Due.Sub(listing.Modified), jittered(listing.URL, v.clock, prior, time.Minute); d != want {
		t.Errorf("listing visited once due %v after its copy, want 4/9 of the window jittered over the shortest: %v", d, want)
	}
	for _, p := range []string{"/about", "/a1", "/a3"} {
		if e := v.line(t, v.base+p); !e.Due.IsZero() {
			t.Errorf("%s, linking only the navigation, due %v: want none, the windows decide", p, e.Due)
		}
	}
}

// A spider that does not visit the start page itself takes the
// navigation from its history, which another spider (or an earlier run)
// wrote.
func TestListingNavigationFromHistory(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/about">about</a><a href="/s/">section</a>`)
	v.site.set("/about", 200, `<a href="/">home</a>`)
	v.site.set("/s/", 200, `<a href="/">home</a><a href="/about">about</a><a href="/a2">2</a><a href="/a3">3</a>`)
	v.cfg = func(c *Config) { c.Profile.MaxLevel, c.Profile.Shortest = 0, time.Minute } // the start page alone
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(30 * time.Second) // the start page is not due again yet
	v.cfg = func(c *Config) { c.Profile.Shortest = time.Minute }
	v.crawl(t, time.Hour)
	if hits := v.hits("/"); hits != 1 {
		t.Fatalf("start page fetched %d times, want once: the second run must not visit it", hits)
	}
	listing := v.line(t, v.base+"/s/")
	if d, want := listing.Due.Sub(listing.Modified), jittered(listing.URL, v.clock, time.Hour*3/5, time.Minute); d != want {
		t.Errorf("listing visited once due %v after its copy, want 3/5 of the window jittered over the shortest: %v", d, want)
	}
}

// jittered is how long after a visit at at a page of url with the mean
// time between changes mean is due, for a profile whose shortest interval
// is floor, in the list's whole seconds.
func jittered(url string, at time.Time, mean, floor time.Duration) time.Duration {
	return change.Next(url, at, nil, mean, floor).Sub(at).Truncate(time.Second)
}

// A listing that a hub's change hinted is a guess, not news: the pass
// carries its hint to the list, but the history records no announcement
// of it, so status does not count it among the announced pages. The
// pass is run as the loop runs it (startPass).
func TestGuessesAreNoAnnouncements(t *testing.T) {
	r := testRun(t)
	at := time.Now().Truncate(time.Second) // the pass's clock is the real one: news heard at once
	const news, guess = "http://h/new", "http://h/s/"
	o := &outcome{job: job{en: list.Entry{URL: "http://h/", Level: 0}},
		adds:    []list.Add{{URL: news, Level: 1, Hint: at}, {URL: guess, Level: 1}},
		guesses: []list.Add{{URL: guess, Level: 1, Hint: at}}}
	r.jobs.found(o, -1, 0)
	r.startPass()
	p := <-r.passDone
	if p.err != nil {
		t.Fatal(p.err)
	}
	c := p.c
	hinted := hintedAt(c.Add, at)
	if !hinted[news] || !hinted[guess] {
		t.Errorf("the pass hints %v; want both %s and %s", hinted, news, guess)
	}
	recs, err := r.hist.get([]string{news, guess})
	if err != nil {
		t.Fatal(err)
	}
	if !recs[news].Announced.Equal(at) {
		t.Errorf("the news of %s: announced %v, want %v", news, recs[news].Announced, at)
	}
	if a := recs[guess].Announced; !a.IsZero() {
		t.Errorf("the guess of %s was recorded as an announcement at %v", guess, a)
	}
}

// A pass that failed puts its guesses back as guesses: the retry carries
// every hint again, and still announces none of the guesses, even when
// links found meanwhile wait for it too.
func TestRequeueKeepsGuesses(t *testing.T) {
	r := testRun(t)
	at := time.Now().Truncate(time.Second)
	const news, guess, later = "http://h/new", "http://h/s/", "http://h/later"
	r.jobs.found(&outcome{job: job{en: list.Entry{URL: "http://h/", Level: 0}},
		adds:    []list.Add{{URL: news, Level: 1, Hint: at}, {URL: "http://h/x", Level: 1}},
		guesses: []list.Add{{URL: guess, Level: 1, Hint: at}}}, -1, 0)
	c, _, _ := r.cycle()
	r.jobs.found(&outcome{job: job{en: list.Entry{URL: "http://h/x", Level: 1}},
		adds: []list.Add{{URL: later, Level: 2}, {URL: later + "2", Level: 2}}}, -1, 0)
	r.requeue(c) // the pass failed
	c, _, _ = r.cycle()
	hinted := hintedAt(c.Add, at)
	if !hinted[news] || !hinted[guess] || len(c.Add) != 5 {
		t.Errorf("the retry carries %v; want all 5 adds, %s and %s hinted", c.Add, news, guess)
	}
	recs, err := r.hist.get([]string{guess})
	if err != nil {
		t.Fatal(err)
	}
	if a := recs[guess].Announced; !a.IsZero() {
		t.Errorf("the retry announced the guess of %s at %v", guess, a)
	}
}

// hintedAt returns the URLs of adds whose hint is at.
func hintedAt(adds []list.Add, at time.Time) map[string]bool {
	hinted := map[string]bool{}
	for _, a := range adds {
		if a.Hint.Equal(at) {
			hinted[a.URL] = true
		}
	}
	return hinted
}

// A visit's result says whether its line was hinted when claimed (the
// visit answers the hint), so that the list keeps a hint that came while
// the visit was out (list.Result.ForHint).
func TestResultsSayWhetherForHint(t *testing.T) {
	r := testRun(t)
	copied := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	hinted := list.Entry{URL: "http://h/hinted", Level: 1, State: list.Downloaded, Modified: copied, Due: copied}
	due := list.Entry{URL: "http://h/due", Level: 1, State: list.Downloaded, Modified: copied, Due: copied.Add(time.Hour)}
	var outs []*outcome
	for _, en := range []list.Entry{hinted, due} {
		outs = append(outs, &outcome{job: job{en: en}, res: list.Result{URL: en.URL, State: list.Downloaded, Modified: copied.Add(2 * time.Hour)}})
	}
	r.committed(committed{outs: outs})
	got := map[string]bool{}
	for _, res := range r.results {
		got[res.URL] = res.ForHint
	}
	if !got[hinted.URL] || got[due.URL] || len(got) != 2 {
		t.Errorf("results for a hint: %v; want %s alone", got, hinted.URL)
	}
}

// A deletion changes every page that listed the page deleted: a listing
// that lost the link and gained none names the other pages this spider
// parsed linking it, and the page found gone (its first 404) names
// those still linking it. All are guesses at the visit's whole second; a
// page that did not link it is not named, nor is a later 404 of the same
// page, nor a 404 of a page that never had a copy.
func TestDeletionHintsLinkers(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/s1">s1</a><a href="/r1">r1</a><a href="/x">x</a>`)
	v.site.set("/s1", 200, `<a href="/a">a</a><a href="/b">b</a>`)
	v.site.set("/r1", 200, `<a href="/b">b</a><a href="/a">a</a>`)
	v.site.set("/x", 200, `<a href="/b">b</a>`)
	v.site.set("/a", 200, "a")
	v.site.set("/b", 200, "b")
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2*time.Hour + 500*time.Millisecond)
	e := v.engine()
	e.beat(v.clock)
	visit := func(path string) *outcome {
		t.Helper()
		return e.process(context.Background(), context.Background(), job{en: v.line(t, v.base+path), epoch: e.lease.current(), rec: v.history(t, path)})
	}
	guessed := func(o *outcome) []string {
		var out []string
		for _, a := range o.guesses {
			if want := v.clock.Truncate(time.Second); !a.Hint.Equal(want) {
				t.Errorf("guess %+v: want it hinted at %v", a, want)
			}
			out = append(out, strings.TrimPrefix(a.URL, v.base)+"@"+strconv.Itoa(a.Level))
		}
		slices.Sort(out)
		return out
	}
	// This spider parses the pages: a copy found current (304, the same
	// body) is not parsed, so each has changed since the first crawl.
	v.site.set("/s1", 200, `<p>1</p><a href="/a">a</a><a href="/b">b</a>`)
	v.site.set("/r1", 200, `<p>1</p><a href="/b">b</a><a href="/a">a</a>`)
	v.site.set("/x", 200, `<p>1</p><a href="/b">b</a>`)
	for _, p := range []string{"/s1", "/r1", "/x"} {
		if o := visit(p); len(o.guesses) != 0 || o.count.Fetched != 1 {
			t.Fatalf("%s, its links as before: fetched %d, guessed %v", p, o.count.Fetched, guessed(o))
		}
	}
	v.site.set("/a", 404, "gone")
	v.site.set("/s1", 200, `<a href="/b">b</a>`)
	if got := guessed(visit("/s1")); !slices.Equal(got, []string{"/r1@1"}) {
		t.Errorf("s1 lost /a: guessed %v, want /r1", got)
	}
	o := visit("/a")
	if got := guessed(o); !slices.Equal(got, []string{"/r1@1"}) {
		t.Errorf("/a found gone: guessed %v, want /r1, which still links it", got)
	}
	if o.rec.NotFound != 1 {
		t.Fatalf("404 count %d, want 1", o.rec.NotFound)
	}
	again := e.process(context.Background(), context.Background(), job{en: v.line(t, v.base+"/a"), epoch: e.lease.current(), rec: *o.rec})
	if got := guessed(again); got != nil {
		t.Errorf("a second 404 guessed %v: the first one did", got)
	}
	// A link to a page that never was: its 404 is no deletion.
	v.site.set("/x", 200, `<p>2</p><a href="/b">b</a><a href="/never">never</a>`)
	visit("/x")
	v.crawl(t, time.Hour) // adds /never, which answers 404
	never := e.process(context.Background(), context.Background(), job{en: v.line(t, v.base+"/never"), epoch: e.lease.current()})
	if got := guessed(never); got != nil || never.rec.NotFound != 1 {
		t.Errorf("a page that never had a copy answered 404: guessed %v", got)
	}
}

// The run's warning of a start page whose list turned over offers a
// shorter --delay only where the delay is what spaces the polls: not
// where the host's Crawl-delay or its answers do, nor where fetching the
// news and polling again take less than the second a poll waits at least.
func TestDelayPaces(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name                 string
		news                 int
		delay, crawl, answer time.Duration
		want                 bool
	}{
		{"a second's delay", 0, time.Second, 0, 30 * ms, true},
		{"the delay above the Crawl-delay", 0, 2 * time.Second, time.Second, 30 * ms, true},
		{"twenty news at 50ms and 30ms answers", 20, 50 * ms, 0, 30 * ms, true},
		{"three news at 50ms: the second sets it", 3, 50 * ms, 0, 30 * ms, false},
		{"no delay", 20, 0, 0, 30 * ms, false},
		{"the Crawl-delay above the delay", 20, 50 * ms, 2 * time.Second, 30 * ms, false},
		{"the delay equal to the Crawl-delay", 0, time.Second, time.Second, 30 * ms, false},
		{"answers slower than the delay", 20, 50 * ms, 0, 200 * ms, false},
	}
	for _, tt := range tests {
		if got := delayPaces(tt.news, tt.delay, tt.crawl, tt.answer); got != tt.want {
			t.Errorf("%s: delayPaces(%d, %v, %v, %v) = %v, want %v", tt.name, tt.news, tt.delay, tt.crawl, tt.answer, got, tt.want)
		}
	}
}

// With no delay, a start page whose list turns over at every poll is
// polled sooner and sooner, down to once a second (pollFloor, the list's
// one-second resolution), not faster: an early refresh once halved that
// second, and the list's copy times being whole seconds, the spider
// polled the start page at every pass in the second half of each second,
// 90 times a second against the benchmark's site (issue 21).
func TestTurningStartPagePolledOnceASecond(t *testing.T) {
	v := newEnv(t)
	turns := 0
	latest := func() string { // every link replaced at each poll
		turns++
		return `<a href="/n` + strconv.Itoa(2*turns) + `">new</a> <a href="/n` + strconv.Itoa(2*turns+1) + `">newer</a>`
	}
	v.site.set("/", 200, latest())
	v.cfg = func(c *Config) { c.Profile.Window, c.Profile.Shortest = time.Hour, 20*time.Minute }
	v.crawl(t, time.Hour)
	v.cfg = func(c *Config) {
		c.Profile.Window, c.Profile.Shortest = time.Hour, 20*time.Minute
		c.UntilIdle, c.MaxCycles = false, 1
	}
	// Each poll when due: the polls come sooner as they find the list
	// replaced, down to a second.
	for home := v.line(t, v.base+"/"); home.Due.Sub(home.Modified) > time.Second; home = v.line(t, v.base+"/") {
		if turns > 30 {
			t.Fatalf("after %d turns the start page is due %v after its copy, want a second", turns, home.Due.Sub(home.Modified))
		}
		v.clock = home.Due
		v.site.set("/", 200, latest())
		v.crawl(t, time.Hour)
	}
	const steps, step = 50, 100 * time.Millisecond
	before := v.hits("/")
	for range steps {
		v.clock = v.clock.Add(step)
		v.site.set("/", 200, latest())
		v.crawl(t, time.Hour)
	}
	// Five seconds: a poll a second, and one more where a copy's time,
	// in whole seconds, falls just before a second's end.
	if n := v.hits("/") - before; n < 4 || n > 10 {
		t.Errorf("start page polled %d times in %v, want about once a second", n, steps*step)
	}
}
