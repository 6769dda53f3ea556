// Package trap tells which links lead into a site's machinery (edit
// forms, histories, feeds, logins, re-sorted listings, session ids) or
// into a URL space without end (a calendar, near-identical pages of one
// URL pattern, ever new query shapes), so that a spider leaves them alone:
// pure functions of a URL, the counts a crawl keeps per URL pattern and
// the config, with no I/O and no state.
//
// Two kinds of rule, after Heritrix's:
//
//   - Machinery (like Heritrix's MatchesRegexDecideRule sets of a crawl
//     profile): a link is recognised by its URL alone, as one of the
//     Families; each family is left out unless Config.Follow names it.
//   - Budgets per URL pattern (like Heritrix's queue budgets, with the
//     pattern of Pattern as the queue): Capped decides from the Counts a
//     crawl keeps for the pattern whether links into it are still taken.
//     A pattern whose pages keep coming back near-identical (Repetitive),
//     a date-like pattern past its budget of URLs, and a path with too
//     many query shapes are capped; an ordinary pattern has no budget, so
//     a long chain of distinct pages is followed to its end.
//
// Heritrix's PathologicalPathDecideRule and TooManyPathSegmentsDecideRule
// are internal/scope's limits (repeated segments, segments per path).
package trap

import "strings"

// Family names a kind of site machinery that Machinery recognises.
type Family string

// The families, as config files name them.
const (
	// Edit: edit forms, page histories, diffs and old revisions, special
	// pages, APIs, printable variants, comment-reply forms (MediaWiki,
	// WordPress, phpBB and the like).
	Edit Family = "edit"
	// Feeds: RSS and Atom feeds.
	Feeds Family = "feeds"
	// Accounts: log in, log out, register, password forms.
	Accounts Family = "accounts"
	// Sort: the same listing re-sorted (sort=, order=, Apache's ?C=N;O=D).
	Sort Family = "sort"
	// Beacons: images a page loads only to count the view or to run the
	// site's background jobs (DokuWiki's taskrunner.php, Matomo's
	// matomo.php and piwik.php): one URL per page, the same empty image
	// each time, a side effect at the server. The one family cut even
	// where a page loads it as a requisite.
	Beacons Family = "beacons"
	// Sessions: session ids and cache-busting time stamps in links, new
	// for every visit. They are not cut but removed (StripSessions);
	// following the family keeps them.
	Sessions Family = "sessions"
)

// Families lists every family, in the order the docs give them.
var Families = []Family{Edit, Feeds, Accounts, Sort, Beacons, Sessions}

// Config is the defences' settings. A budget ≤ 0 is off.
type Config struct {
	Follow []Family // families followed all the same
	// SimilarPages caps a URL pattern once this many of its pages were
	// near-identical to the pattern's earlier pages (Repetitive).
	SimilarPages int
	// DateURLs caps a date-like URL pattern (a calendar, day archives) at
	// this many URLs.
	DateURLs int
	// QueryShapes caps the query shapes (sets of query keys) of one path:
	// links with a new shape are not taken once the path has this many.
	QueryShapes int
}

// Strip returns the link u as the crawl takes it: without session ids
// (StripSessions), unless c follows the Sessions family.
func (c Config) Strip(u string) string {
	if c.Follows(Sessions) {
		return u
	}
	return StripSessions(u)
}

// Follows reports whether c follows the family f all the same.
func (c Config) Follows(f Family) bool {
	for _, g := range c.Follow {
		if g == f {
			return true
		}
	}
	return false
}

// Valid reports whether name is a family.
func Valid(name string) bool {
	for _, f := range Families {
		if string(f) == name {
			return true
		}
	}
	return false
}

// Reason says why a family's links are cut, for logs, status and show.
func (f Family) Reason() string {
	switch f {
	case Edit:
		return "site machinery (edit, history, diff, special pages, API)"
	case Feeds:
		return "feed"
	case Accounts:
		return "login or account page"
	case Sort:
		return "re-sorted listing"
	case Beacons:
		return "beacon (counts a view or runs the site's jobs)"
	case Sessions:
		return "session id or cache buster removed from the URL"
	}
	return string(f)
}

// Cut returns the family of the machinery the canonical URL u leads to,
// and the sign it was known by ("action=edit", "/feed/"), unless c
// follows that family; "" if u is not machinery or is followed.
func (c Config) Cut(u string) (Family, string) {
	f, sign := Machinery(u)
	if f == "" || c.Follows(f) {
		return "", ""
	}
	return f, sign
}

// CutRequisite is Cut for a link a page loads to display (an image, a
// style sheet, a script): of the families only beacons are cut there, so
// that a page's look never depends on what else is machinery (MediaWiki's
// styles come from its load.php).
func (c Config) CutRequisite(u string) (Family, string) {
	if f, sign := c.Cut(u); f == Beacons {
		return f, sign
	}
	return "", ""
}

// splitURL returns the path and the query of the canonical URL u, without
// the fragment.
func splitURL(u string) (host, path, query string) {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "", "", ""
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, query, _ = strings.Cut(rest, "?")
	host, _, ok = strings.Cut(rest, "/")
	path = rest[len(host):] // with its '/', without a copy
	if !ok {
		path = "/"
	}
	return host, path, query
}

// params splits a query into its key=value pairs, on & and ; (Apache's
// directory listings use ;).
func params(query string) [][2]string {
	if query == "" {
		return nil
	}
	out := make([][2]string, 0, 1+strings.Count(query, "&")+strings.Count(query, ";"))
	for p := range strings.FieldsFuncSeq(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(p, "=")
		out = append(out, [2]string{k, v})
	}
	return out
}
