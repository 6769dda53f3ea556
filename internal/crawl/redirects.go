package crawl

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/history"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/list"
)

// Redirects a page fetch stopped at: the one to the page a line's copy
// forwards to already (sameRedirect), and those the spider may not follow
// (redirectable, scope.go), which leave a forward online where that harms
// nothing (staysAway, forwardAway).

// refusedRedirect returns where the redirect that ended the fetch (err)
// leads, and its status, if it is one the spider did not follow because
// it may not go there (e.fetch, fetch.WithFollowStop: out of scope,
// excluded, site machinery, forbidden by robots.txt), not the redirect
// to a page the line's copy forwards to already (redirected, sameRedirect).
func refusedRedirect(err error, redirected int) (string, int) {
	if redirected != 0 {
		return "", 0
	}
	to, status, ok := fetch.RedirectTarget(err)
	if !ok {
		return "", 0
	}
	return to, status
}

// staysAway returns why the line en, whose history is rec, may not take a
// copy that forwards to away, a redirect the spider did not follow (""
// if it may, or if away is ""): then the redirect fails the line as any
// failed fetch does, and its copy, if any, stays. A forward online
// replaces no copy but another such forward (a good copy, or one that
// forwards to a page of the site, survives a page that redirects to a
// login for a while), stands for no start URL (a start URL that
// redirects elsewhere is a mistake to report: startWatch), and leads
// into no private network.
func (e *Engine) staysAway(en list.Entry, rec meta.Record, away string) string {
	if away == "" {
		return ""
	}
	switch why := e.follow.rules.Check(away, 1); {
	case why != "":
		return why
	case en.Level == 0 && en.File == "":
		return "a start URL that redirects where the spider does not go"
	case en.File != "" && !forwardsAway(rec):
		return "its copy stays"
	}
	return ""
}

// forwardsAway reports whether the copy whose history is rec is the one
// forwardAway writes: a page forwarding to rec.RedirectTo online.
func forwardsAway(rec meta.Record) bool {
	return rec.RedirectTo != "" && rec.Checksum == checksum(rewrite.Forward(rec.RedirectTo))
}

// forwardAway records a visit of o's line that answered with a redirect
// to to, which the spider does not follow: the line's copy is a page that
// forwards to to online, as a link to such a URL stays absolute, so that
// links to the line lead on from the mirror; no line is made for to. The
// same redirect again keeps the copy (history.Redirected).
func (e *Engine) forwardAway(o *outcome, to string, status int, now time.Time) {
	en, prior, rec := o.job.en, o.job.rec, o.rec
	if samePlace(prior.RedirectTo, to) && forwardsAway(prior) && e.keepable(en, prior) {
		*rec = history.Redirected(*rec, status, now)
		e.kept(o, en.File, now)
		o.count.Forwarded++
		return
	}
	file, err := e.cfg.Layout.Path(en.URL, "text/html")
	if err != nil {
		e.notStored(o, err, now)
		return
	}
	body := rewrite.Forward(to)
	sum := checksum(body)
	o.copy = &pageCopy{file: file, body: body, ev: e.change(en, file, body, now), leads: e.leads(en.URL, file, body)}
	*rec = history.FetchedOK(*rec, &fetch.Response{Status: status, URL: to, MediaType: "text/html", Header: http.Header{}, Body: body}, sum, true, now)
	rec.Forwards = false // no line of the site's to forward to: the redirect is judged again at each visit (forwardsTo)
	rec.Reason = fmt.Sprintf("redirects (%d) where the spider does not go: its copy forwards there", status)
	e.revisit(o, rec, sum != prior.Checksum, nil, now)
	e.polite.retry.ok(en.URL)
	o.res.State, o.res.File, o.res.Modified = list.Downloaded, file, now
	o.count.Forwarded++
	e.log.Debug("redirect not followed", "url", en.URL, "to", to, "file", file)
}

// samePlace reports whether two redirect targets differ at most in their
// query: a login's redirect carries a fresh state or nonce each time, and
// a forward that changed only there is the same forward.
func samePlace(a, b string) bool {
	a, _, _ = strings.Cut(a, "?")
	b, _, _ = strings.Cut(b, "?")
	return a == b
}

// sameRedirect returns the status of the redirect to same that get did not
// follow (err), or 0.
func sameRedirect(err error, same string) int {
	to, status, ok := fetch.RedirectTarget(err)
	if same == "" || !ok || to != same {
		return 0
	}
	return status
}
