// Package fetch performs one HTTP GET with the limits a crawler needs.
//
// A Client holds one shared http.Client and is safe for concurrent use. Every
// request is bounded: a dial timeout, a response-header timeout, an overall
// timeout that includes reading the body, a cap on the decoded body size (a
// gzip bomb is cut at MaxBody decoded bytes), and a cap on redirects with loop
// detection.
//
// Get returns a *Response only for a 2xx status with the whole body read.
// Every other outcome is an error that the caller classifies with Gone (404,
// 410: the page no longer exists), Transient (worth retrying later; never
// evidence that a page is gone) and NotModified (304 to a conditional GET).
// An error that is none of these is permanent for this URL: other 4xx, a
// redirect loop, a body over MaxBody.
//
// Error text never holds the user:password part of a URL.
package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/urlkey"
)

// Options are the limits of a Client. Zero fields take the defaults below.
type Options struct {
	UserAgent       string        // default DefaultUserAgent()
	Timeout         time.Duration // whole request including the body; default 60s
	ConnectTimeout  time.Duration // dial; default 10s
	HeaderTimeout   time.Duration // from request written to response headers; default 20s
	MaxBody         int64         // bytes after content decoding; default 32 MiB
	MaxRedirects    int           // redirects followed; default 10
	MaxConnsPerHost int           // open connections per host; default 4
	// Refuse, if set, turns down connections to the addresses it names
	// (see dial.go): checked on the address dialled, after DNS, at every
	// redirect hop.
	Refuse func(netip.Addr) bool
	// MinRate, if positive, cuts off a body arriving slower than this
	// many bytes per second on average, once DefaultMinRateGrace has
	// passed since its first byte (rate.go).
	MinRate int64
}

// Defaults for zero Options fields.
const (
	DefaultTimeout         = 60 * time.Second
	DefaultConnectTimeout  = 10 * time.Second
	DefaultHeaderTimeout   = 20 * time.Second
	DefaultMaxBody         = 32 << 20
	DefaultMaxRedirects    = 10
	DefaultMaxConnsPerHost = 4
)

// DefaultUserAgent returns "spider/<version> (+https://github.com/spider-mirror/spider)",
// with the version taken from the binary's build information.
func DefaultUserAgent() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "spider/" + v + " (+https://github.com/spider-mirror/spider)"
}

func (o Options) withDefaults() Options {
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = DefaultHeaderTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.MaxConnsPerHost <= 0 {
		o.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	return o
}

// Client fetches pages. It is safe for concurrent use; make one and share it.
type Client struct {
	opt       Options
	hc        *http.Client
	follow    func(string) bool // nil follows any redirect (WithFollow)
	stop      bool              // a refused redirect is the answer (WithFollowStop)
	rateGrace time.Duration     // tests; 0 = DefaultMinRateGrace
}

// New returns a Client with the limits o, defaults filled in.
func New(o Options) *Client {
	o = o.withDefaults()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	tr.DialContext = (&net.Dialer{
		Timeout:   o.ConnectTimeout,
		KeepAlive: 30 * time.Second,
		Control:   dialControl(o.Refuse),
	}).DialContext
	tr.ResponseHeaderTimeout = o.HeaderTimeout
	tr.MaxConnsPerHost = o.MaxConnsPerHost
	tr.MaxIdleConnsPerHost = o.MaxConnsPerHost
	tr.ForceAttemptHTTP2 = true
	tr.DisableCompression = false // net/http asks for gzip and decodes it

	c := &Client{opt: o}
	c.hc = &http.Client{
		Transport:     tr,
		Timeout:       o.Timeout,
		CheckRedirect: c.checkRedirect,
	}
	return c
}

// Response is a successful (2xx) fetch.
type Response struct {
	URL       string      // canonical final URL, after redirects
	Status    int         // 2xx
	MediaType string      // lower-case Content-Type without parameters, "" if absent
	Header    http.Header // as received (net/http removes Content-Encoding once it has decoded gzip)
	Body      []byte      // as served after gzip decoding; never charset-converted
	Redirects []string    // canonical URL of each hop before URL, starting with the requested one; empty if none
}

// Get fetches canonicalURL (re-canonicalised with urlkey.Parse, so any
// user:password is dropped). The headers in hdr are added to the request, for
// example If-None-Match for a conditional GET; User-Agent in hdr overrides
// Options.UserAgent, and Accept-Encoding in hdr is ignored so that net/http
// keeps decoding gzip itself.
//
// Get returns a *Response for a 2xx status. Otherwise it returns an error:
// *HTTPError for other statuses, an error wrapping ErrRedirects for a
// redirect loop or too many redirects, ErrTooLarge for a body over MaxBody,
// and the network or context error (wrapped) for timeouts and resets.
func (c *Client) Get(ctx context.Context, canonicalURL string, hdr http.Header) (*Response, error) {
	u, err := urlkey.Parse(canonicalURL)
	if err != nil {
		return nil, fmt.Errorf("fetch: GET %s: %w", redact(canonicalURL), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch: GET %s: %w", u, err)
	}
	req.Header.Set("User-Agent", c.opt.UserAgent)
	for k, vs := range hdr {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Del("Accept-Encoding")

	resp, err := c.hc.Do(req)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		// url.Error repeats the method and URL (unredacted for redirect
		// targets); replace it with ours and keep its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("fetch: GET %s: %w", u, err)
	}
	defer resp.Body.Close()

	final := resp.Request.URL.String()
	if cu, err := urlkey.Parse(final); err == nil {
		final = cu
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Read a little so the connection can be reused; the rest is dropped.
		io.CopyN(io.Discard, resp.Body, 4<<10)
		he := &HTTPError{
			URL:        redact(final),
			StatusCode: resp.StatusCode,
			Status:     statusText(resp),
			Header:     resp.Header,
		}
		if loc, err := resp.Location(); err == nil && isRedirect(resp.StatusCode) {
			if cu, err := urlkey.Parse(loc.String()); err == nil {
				he.Location = cu
			}
		}
		return nil, he
	}

	if resp.ContentLength > c.opt.MaxBody {
		return nil, fmt.Errorf("fetch: GET %s: %w", redact(final), &answerError{resp.StatusCode,
			&limitError{fmt.Sprintf("content-length %d over limit %d", resp.ContentLength, c.opt.MaxBody), ErrTooLarge}})
	}
	body, err := readBody(io.LimitReader(c.slowGuard(resp.Body), c.opt.MaxBody+1), resp.ContentLength)
	if err != nil {
		return nil, fmt.Errorf("fetch: GET %s: read body: %w", redact(final), &answerError{resp.StatusCode, err})
	}
	if int64(len(body)) > c.opt.MaxBody {
		return nil, fmt.Errorf("fetch: GET %s: %w", redact(final), &answerError{resp.StatusCode,
			&limitError{fmt.Sprintf("body over limit %d", c.opt.MaxBody), ErrTooLarge}})
	}

	return &Response{
		URL:       final,
		Status:    resp.StatusCode,
		MediaType: mediaType(resp.Header.Get("Content-Type")),
		Header:    resp.Header,
		Body:      body,
		Redirects: hops(resp),
	}, nil
}

// maxPresize bounds the memory a Content-Length makes readBody set aside
// before any of the body has arrived.
const maxPresize = 1 << 20

// readBody reads r to the end into one buffer of the announced length
// (up to maxPresize) where the server announced one: io.ReadAll starts
// from 512 bytes and allocates and copies again each time its buffer
// fills. A wrong length costs only the growth io.ReadAll would have made.
func readBody(r io.Reader, announced int64) ([]byte, error) {
	var b bytes.Buffer
	if announced > 0 {
		b.Grow(int(min(announced, maxPresize)) + bytes.MinRead) // MinRead: room to read EOF without growing
	}
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// hops lists the canonical URLs requested before the final one, oldest first.
func hops(resp *http.Response) []string {
	var rev []string
	for r := resp.Request; r.Response != nil; {
		r = r.Response.Request
		s := r.URL.String()
		if cu, err := urlkey.Parse(s); err == nil {
			s = cu
		}
		rev = append(rev, s)
	}
	out := make([]string, len(rev))
	for i, s := range rev {
		out[len(rev)-1-i] = s
	}
	return out
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// isRedirect reports whether status is a redirect a Location goes with:
// 301, 302, 303, 307, 308 (not 304, nor 300's choices).
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}
