package fetch

import "net/http"

// WithFollow returns a Client that shares c's connections and limits and
// follows a redirect only to a canonical URL for which follow returns
// true; any other redirect ends the fetch with an error wrapping
// ErrRedirectRefused that names the target. A crawler passes what it may
// fetch (its scope, its rules, robots.txt), so a redirect never leads it
// off the site, nor where it would not follow a link.
func (c *Client) WithFollow(follow func(canonicalURL string) bool) *Client {
	n := &Client{opt: c.opt, follow: follow, rateGrace: c.rateGrace}
	n.hc = &http.Client{Transport: c.hc.Transport, Timeout: c.hc.Timeout, CheckRedirect: n.checkRedirect}
	return n
}
