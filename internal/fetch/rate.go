package fetch

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrTooSlow reports a body that arrived slower than Options.MinRate: a
// server trickling bytes is cut off long before the overall Timeout.
var ErrTooSlow = errors.New("fetch: body too slow")

// DefaultMinRateGrace is how long a body may take before MinRate applies.
const DefaultMinRateGrace = 10 * time.Second

// rateReader fails once, after the grace period, the bytes read divided by
// the time since the first read fall below min bytes per second. It checks
// when a read returns, so a server that sends nothing at all is left to
// the overall timeout.
type rateReader struct {
	r     io.Reader
	min   int64
	grace time.Duration
	start time.Time
	n     int64
	now   func() time.Time
}

func (r *rateReader) Read(p []byte) (int, error) {
	if r.start.IsZero() {
		r.start = r.now()
	}
	n, err := r.r.Read(p)
	r.n += int64(n)
	if err == nil {
		if el := r.now().Sub(r.start); el > r.grace && float64(r.n)/el.Seconds() < float64(r.min) {
			return n, &limitError{fmt.Sprintf("body too slow: %d bytes in %v, under %d bytes/s", r.n, el.Round(time.Millisecond), r.min), ErrTooSlow}
		}
	}
	return n, err
}

// slowGuard wraps body in a rateReader if the client has a MinRate.
func (c *Client) slowGuard(body io.Reader) io.Reader {
	if c.opt.MinRate <= 0 {
		return body
	}
	grace := c.rateGrace
	if grace <= 0 {
		grace = DefaultMinRateGrace
	}
	return &rateReader{r: body, min: c.opt.MinRate, grace: grace, now: time.Now}
}
