package fetch

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/spider-mirror/spider/internal/urlkey"
)

// ErrRedirects is wrapped by the error for a redirect loop, too many
// redirects, or a redirect to a URL the crawler cannot fetch.
var ErrRedirects = errors.New("fetch: bad redirect")

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
		return &limitError{"redirect out of scope to " + redact(next) + " (not followed)", ErrRedirects}
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
