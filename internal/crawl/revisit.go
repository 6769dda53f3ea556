package crawl

import (
	"log/slog"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/change"
	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/inlinks"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// A visit that reached a page (a 2xx or a 304) teaches its change model
// (internal/change) whether the page changed since the visit before, and
// sets when the page is next worth a visit: the line's due, which the
// claim policy bounds by each profile's windows (internal/claim). A page
// with no history yet has no due: each profile's window decides; but a
// start page (level 0) is due again after the profile's shortest interval:
// start pages are where a site announces, one visit says nothing of how
// often they change, and what a home page's "latest" list shows at the
// first visit may have scrolled off before a whole window passes. A start
// page whose list moves faster is polled sooner (pollSooner). A page
// whose links at its first visit are mostly its own, not the site's
// navigation (a listing: change.Nav.Prior), is due sooner than the window
// in proportion, so that after a first mirror the listings, which change
// whenever a page they list comes or goes, are looked at again before the
// articles. Revisits that never saw a change, too close together to say
// more than that prior (change.Known), count as no history: a new page
// that one hub after another announced is not polled again and again while
// the time watched doubles; the prior comes from the page's links at the
// visit or, for a hub answering 304, at the visit before. A change a hub
// or a sitemap announced is counted as caught but not taught to the model
// (change.Heard): the model times the revisits that look for the changes
// nobody announces. A requisite (an image, a style sheet, a script, a
// font) is presumed to change once per Config.RequisiteEvery: requisites
// are fetched when new and refreshed by the slow spider, not at every fast
// window, and after the pages when the budget cannot cover both.

// revisit updates the model in rec for a visit at now that found the page
// changed or not, and sets the result's due. pages are the page's links to
// other pages (pageLinks) when the visit fetched and parsed an HTML body,
// else nil.
func (e *Engine) revisit(o *outcome, rec *meta.Record, changed bool, pages []string, now time.Time) {
	before := o.job.rec
	switch {
	case before.LastOK.IsZero() || !before.LastOK.Before(now):
	case changed && !before.Announced.IsZero():
		*rec = change.Heard(*rec) // its announcement brought it: no evidence of how often it changes unannounced
	default:
		*rec = change.Observe(*rec, now.Sub(before.LastOK), changed)
	}
	if !before.Announced.IsZero() {
		rec.Lag, rec.Announced = now.Sub(before.Announced), time.Time{}
	}
	en := o.job.en
	prior := e.cfg.Profile.Window
	shortest, _, _ := e.cfg.Profile.Intervals()
	if requisiteType(rec.MediaType) {
		o.res.Due = change.Next(en.URL, now, rec.Visits, max(e.cfg.RequisiteEvery, prior), shortest)
		return
	}
	// The page's prior, from its links at this visit or else at the
	// visit before (a hub's, kept for its announcements).
	nav := e.navs.of(hostOf(en.URL))
	if pages != nil {
		prior = nav.Prior(prior, pages)
	} else {
		prior = nav.PriorOf(prior, rec.Links)
	}
	switch {
	case change.Known(rec.Visits, prior):
		o.res.Due = change.Next(en.URL, now, rec.Visits, prior, shortest)
	case en.Level == 0:
		o.res.Due = now.Add(shortest)
	case prior < e.cfg.Profile.Window:
		o.res.Due = change.Next(en.URL, now, nil, prior, shortest)
	} // else no evidence yet: each profile's window decides
	if en.Level == 0 {
		e.pollSooner(o, rec, prior, pages, now)
	}
}

// pollSooner brings the next poll of a start page forward from shortest
// when its list of announcements moves faster (change.PollAfter): when it
// will have replaced about half its entries at the rate the polls saw.
// A poll that found nothing replaced moves the next one later again, if
// this one came sooner. With no delay (Engine.unpaced), after a poll that
// found its links changed, it also comes as soon as the page's model
// (rec, prior) expects its next change: every announcement passes through
// the start page, and nothing but the spider's speed bounds the rate, so
// a poll likely to find one is worth its request (a page whose body alone
// changes, a clock or a token, is not polled for that). Both are no
// sooner than pollFloor. pages are its links at this visit, nil if it
// answered 304 (nothing replaced).
func (e *Engine) pollSooner(o *outcome, rec *meta.Record, prior time.Duration, pages []string, now time.Time) {
	last := o.job.rec.LastOK
	if last.IsZero() || !last.Before(now) {
		return
	}
	var churn float64
	var news []string
	if pages != nil {
		prev := o.job.rec.Links
		churn, news = change.Churn(prev, pages), change.Announced(prev, pages)
	}
	shortest, _, _ := e.cfg.Profile.Intervals()
	en := o.job.en
	sooner := en.Due.After(en.Modified) && en.Due.Sub(en.Modified) < shortest
	model := e.unpaced() && (churn > 0 || len(news) > 0) && change.Known(rec.Visits, prior)
	if churn == 0 && !sooner && !model {
		return // nothing replaced, and not polled sooner before: the model decides
	}
	floor := e.pollFloor(hostOf(en.URL), len(news))
	var d time.Duration
	var ok bool
	if churn > 0 || sooner {
		d, ok = change.PollAfter(churn, now.Sub(last), shortest, floor)
	}
	if model {
		if m := max(change.Interval(rec.Visits, prior), floor); m < shortest && (!ok || m < d) {
			d, ok = m, true
		}
	}
	if due := now.Add(d); ok && (o.res.Due.IsZero() || due.Before(o.res.Due)) {
		o.res.Due = due
	}
}

// unpaced reports whether the spider refreshes with no delay: nothing
// bounds its rate at a host but its own speed (claim.Picker.Unpaced). A
// run that stops when idle takes only what is due.
func (e *Engine) unpaced() bool { return e.cfg.Delay == 0 && !e.cfg.UntilIdle }

// pollFloor is how soon a start page at host may be polled again after a
// poll that announced news pages: no sooner than the host's pace allows
// fetching them and the next poll (its delay, raised by its Crawl-delay,
// plus its mean answer time, a request), and than a second, the list's
// resolution.
func (e *Engine) pollFloor(host string, news int) time.Duration {
	return max(time.Second, time.Duration(news+1)*(e.polite.hostDelay(host)+e.obs.answer(host)))
}

// warnTurnover logs that the list of the start page at url turned over
// between two polls that came as soon as the host's pace allows (after
// news pages announced, pollFloor), with what sets that pace: the
// spider's --delay, the host's Crawl-delay, its answers. Only a pace the
// delay sets has a remedy the user holds.
func (e *Engine) warnTurnover(url string, news int) {
	host := hostOf(url)
	delay, crawl, answer := e.cfg.Delay, e.polite.crawlDelay(host), e.obs.answer(host).Round(time.Millisecond)
	attrs := []any{"delay", delay, "crawl_delay", crawl, "answer", answer}
	if delayPaces(news, delay, crawl, answer) {
		attrs = append(attrs, "hint", "a shorter --delay, if the host allows it, lets the start page be polled sooner")
	}
	e.obs.warns.note(slog.LevelWarn, "a start page's latest links all changed since its last poll, which came as soon as the host's pace allows: pages it listed in between may be missed until a listing or the slow spider finds them",
		url, attrs...)
}

// delayPaces reports whether a shorter delay would poll a start page
// sooner after a poll that announced news pages (pollFloor): the delay
// is what spaces the host's requests, above its Crawl-delay, which the
// spider obeys (a delay equal to it is no lever), and not below its mean
// answer time, which each request waits for whatever the delay; and the
// time to fetch the news and poll again is above the second a poll waits
// at least (the list's resolution).
func delayPaces(news int, delay, crawl, answer time.Duration) bool {
	return delay > crawl && delay >= answer && time.Duration(news+1)*(delay+answer) > time.Second
}

// requisiteType reports whether a body of media type mt is something pages
// load to display rather than a page people open.
func requisiteType(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "font/"),
		strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return true
	}
	switch mt {
	case "text/css", "text/javascript", "application/javascript", "application/x-javascript",
		"application/wasm", "application/font-woff", "application/vnd.ms-fontobject":
		return true
	}
	return false
}

// pageLinks returns the links of a page to other pages, as the change
// model compares them: in document order, without the parameters the
// crawl strips (judged, judgedLinks, has each link's URL so). It is never
// nil, so that revisit tells a page parsed with no links from a visit that
// parsed nothing.
func pageLinks(links []extract.Link, judged []judgedLink) []string {
	pages := []string{}
	for i, l := range links {
		if l.Kind == extract.Page {
			pages = append(pages, judged[i].url)
		}
	}
	return pages
}

// announce compares the links of a changed page within the hub levels
// (Config.HubLevel; pages, from pageLinks) with their order at the visit
// before, and hints the list that the pages it announces (new links, links
// moved up) changed: the links' Adds carry the hint, so only links the
// crawl follows are hinted. If its links changed, the page is a listing
// where the site's changes land (listed), and the deeper listings it
// links may have changed with it: the pages it links are candidates
// (outcome.listed), which the next pass hints if their history says they
// are (listingGuesses), as guesses, which the history does not take for
// announcements of a change. A page does not hint itself: its visit is
// its news. The hint is the visit's time in the list's whole seconds, so
// it marks only copies taken in an earlier second: a copy taken in the
// same second may as well be newer than the change. A start page's links
// are its site's navigation (navigation). A start page whose
// announcements turned over whole since its last poll (change.TurnedOver)
// may have listed pages in between that its poll missed: the spider's
// status counts such polls that came within twice the shortest interval
// of the one before (Status.Turnovers), and the run's log says so, once
// a run for each start page, with the remedy, if the poll came within
// twice the soonest the spider may poll (pollFloor): sooner ones are
// what pollSooner does about it.
func (e *Engine) announce(o *outcome, rec *meta.Record, pages []string, now time.Time) {
	prev := o.job.rec.Links
	news := change.Announced(prev, pages)
	rec.Links = change.Links(pages)
	en := o.job.en
	if en.Level == 0 {
		e.navs.set(en.URL, rec.Links)
		// Only a poll that came about when due says something of
		// shortest: not one after a restart or a pause.
		shortest, _, _ := e.cfg.Profile.Intervals()
		last := o.job.rec.LastOK
		if !last.IsZero() && now.Sub(last) <= 2*shortest && change.TurnedOver(prev, pages) &&
			e.navs.turnedOver(en.URL, now, now.Sub(last) <= 2*e.pollFloor(hostOf(en.URL), len(news))) {
			e.warnTurnover(en.URL, len(news))
		}
	}
	moved := prev != "" && rec.Links != prev
	listed(rec, en.Level, moved)
	if len(news) == 0 && !moved {
		return
	}
	hinted := make(map[string]bool, len(news))
	for _, u := range news {
		hinted[u] = true
	}
	linked := make(map[string]bool, len(pages))
	for _, u := range pages {
		linked[u] = true
	}
	at := now.Truncate(time.Second)
	for i, a := range o.adds {
		switch {
		case a.URL == en.URL: // its visit is its news
		case hinted[a.URL]:
			o.adds[i].Hint = at
		case moved && linked[a.URL]:
			o.listed = append(o.listed, candidate{add: list.Add{URL: a.URL, Level: a.Level, Hint: at}, hub: en.Level})
		}
	}
}

// guessLinkers hints the pages ls, which linked a page that a visit at
// now found gone or a listing dropped (internal/inlinks: a page that lost
// links and gained none names the other pages that linked them), that they
// changed: a site that deletes a page changes every page that listed it.
// They are guesses, as a listing's are (announce): no announcement.
func (e *Engine) guessLinkers(o *outcome, ls []inlinks.Linker, now time.Time) {
	at := now.Truncate(time.Second)
	for _, l := range ls {
		o.guesses = append(o.guesses, list.Add{URL: l.URL, Level: l.Level, Hint: at})
	}
}

// A listing is a page where a site's changes land, one whose links
// changed at one of its latest visits: a new article changes the home
// page, the front pages of its section and of the archive, and the pages
// of each that list it. Changes travel down them: when a hub's links
// change, the deeper listings it links are hinted (the next pass claims
// them at once), as wget's loop sweeps a site again when its start page
// changed, but asking only for the listings, each at most once per change
// of a page above it that links it. Only deeper ones: the navigation
// links every listing back to the start page, which would otherwise be
// hinted by each listing its own change had hinted. Which pages are
// listings is kept in their history (meta.Record.Listing), so every
// spider of the list knows it, whichever visited the page, and a spider
// that restarts does not learn it again.
//
// listingMemory is how many visits in a row must find a listing's links
// unchanged before it is no listing any more: a section's front page
// changes at about one visit in as many as the site has sections (of
// four, one in four), so a visit that found it unchanged says little of
// the next change above it; eight visits in a row find it unchanged one
// time in ten. A page whose links stayed the same that long stops the
// chain.
const listingMemory = 8

// listed notes in rec, the history of a page at level after a visit,
// whether its links changed since the visit before (moved).
func listed(rec *meta.Record, level int, moved bool) {
	switch {
	case moved:
		rec.Listing, rec.ListingLevel = listingMemory, level
	case rec.Listing > 1:
		rec.Listing--
	default:
		rec.Listing, rec.ListingLevel = 0, 0
	}
}

// candidate is a page that a hub whose links changed links: a guess that
// it changed too if its history says it is a listing deeper than the hub
// (listingGuesses).
type candidate struct {
	add list.Add // the guess, as the pass adds it
	hub int      // the hub's level
}

// listings returns the guesses among cands, the pages linked by hubs
// whose links changed (listingGuesses), from their history in h as it
// stands with what this spider has yet to store.
func (e *Engine) listings(h *historian, cands []candidate) []list.Add {
	if len(cands) == 0 {
		return nil
	}
	urls := make([]string, len(cands))
	for i, c := range cands {
		urls[i] = c.add.URL
	}
	recs, err := h.get(urls)
	if err != nil {
		e.log.Warn("fetch history not read; the listings below the hubs that changed are not hinted", "err", err)
	}
	return listingGuesses(cands, recs)
}

// listingGuesses returns the guesses among cands: the pages whose history
// in recs says they are listings deeper than the hub that linked them,
// each once.
func listingGuesses(cands []candidate, recs map[string]meta.Record) []list.Add {
	var out []list.Add
	seen := make(map[string]bool)
	for _, c := range cands {
		r, ok := recs[c.add.URL]
		if ok && r.Listing > 0 && r.ListingLevel > c.hub && !seen[c.add.URL] {
			seen[c.add.URL] = true
			out = append(out, c.add)
		}
	}
	return out
}
