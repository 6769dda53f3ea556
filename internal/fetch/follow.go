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

// WithFollowStop is WithFollow, except that a redirect follow refuses ends
// the fetch with the redirect itself: an *HTTPError of its 3xx status,
// whose Location RedirectTarget reads. A crawler that records where a URL
// leads without going there wants that, not a failure.
func (c *Client) WithFollowStop(follow func(canonicalURL string) bool) *Client {
	n := c.WithFollow(follow)
	n.stop = true
	return n
}
