package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/spider-mirror/spider/internal/urlkey"
)

// ErrRedirects is wrapped by the error for a redirect loop, too many
// redirects, or a redirect to a URL the crawler cannot fetch.
var ErrRedirects = errors.New("fetch: bad redirect")

// ErrRedirectRefused is wrapped by the error for a redirect that the
// client's follow function refused (WithFollow: out of the crawler's
// scope, excluded, forbidden by robots.txt). It wraps ErrRedirects.
var ErrRedirectRefused = fmt.Errorf("%w: not followed", ErrRedirects)

// A PaceFunc is called before each redirect hop with the canonical URL
// about to be requested, once the hop is known to be followed. It returns
// when the request may go (its host's turn), or an error that ends the
// fetch; the error is kept in the fetch's error chain.
type PaceFunc func(ctx context.Context, next string) error

// paceKey carries a GetPaced's PaceFunc in its request's context, where
// checkRedirect finds it.
type paceKey struct{}

// GetPaced is Get with pace called before every redirect hop, so that a
// hop waits for its host's turn like a request of its own (a crawler's
// per-host delay holds for every request it makes, hops included).
func (c *Client) GetPaced(ctx context.Context, canonicalURL string, hdr http.Header, pace PaceFunc) (*Response, error) {
	if pace != nil {
		ctx = context.WithValue(ctx, paceKey{}, pace)
	}
	return c.Get(ctx, canonicalURL, hdr)
}

// checkRedirect is the http.Client's CheckRedirect. via holds the requests
// already made, oldest first; req is the one about to be made.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opt.MaxRedirects {
		return &limitError{fmt.Sprintf("stopped after %d redirects", c.opt.MaxRedirects), ErrRedirects}
	}
	next, err := urlkey.Parse(req.URL.String())
	if err != nil {
		// urlkey's error quotes the raw URL, password and all: say why in
		// our own words.
		why := "invalid url"
		switch {
		case errors.Is(err, urlkey.ErrScheme):
			why = "scheme not http or https"
		case errors.Is(err, urlkey.ErrTooLong):
			why = "url too long"
		}
		return &limitError{fmt.Sprintf("redirect to %s: %s", redact(req.URL.String()), why), ErrRedirects}
	}
	for _, r := range via {
		if key(r) == next {
			return &limitError{"redirect loop at " + next, ErrRedirects}
		}
	}
	if c.follow != nil && !c.follow(next) {
		if c.stop {
			return http.ErrUseLastResponse
		}
		return &limitError{"redirect to " + redact(next) + " not followed (out of scope, excluded, or forbidden by robots.txt)", ErrRedirectRefused}
	}
	if pace, ok := req.Context().Value(paceKey{}).(PaceFunc); ok {
		return pace(req.Context(), next)
	}
	return nil
}

func key(r *http.Request) string {
	s := r.URL.String()
	if cu, err := urlkey.Parse(s); err == nil {
		return cu
	}
	return s
}

// RedirectTarget returns where the redirect that ended a fetch leads (err
// an *HTTPError of a 3xx status with a Location, as WithFollowStop and a
// PaceFunc returning http.ErrUseLastResponse leave it), canonical, and the
// status.
func RedirectTarget(err error) (to string, status int, ok bool) {
	var he *HTTPError
	if !errors.As(err, &he) || he.Location == "" {
		return "", 0, false
	}
	return he.Location, he.StatusCode, true
}
