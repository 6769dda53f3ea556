package fetch

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// ErrTooLarge reports a body longer than Options.MaxBody once decoded. No
// part of such a body is returned.
var ErrTooLarge = errors.New("fetch: body too large")

// limitError is a limit hit while fetching: its text is its own, without
// the sentinel's "fetch:" prefix that the whole error already carries, and it
// matches the sentinel with errors.Is.
type limitError struct {
	msg  string
	kind error // ErrTooLarge or ErrRedirects
}

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return e.kind }

// answerError is a failure after the server answered with status: its
// body was over a limit or could not be read in full.
type answerError struct {
	status int
	err    error
}

func (e *answerError) Error() string { return e.err.Error() }
func (e *answerError) Unwrap() error { return e.err }

// Status returns the HTTP status the server answered with before err: an
// HTTPError's, or that of an answer whose body was over a limit or could
// not be read; 0 if no server answered (a connection failure, a redirect
// not followed).
func Status(err error) int {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	var ae *answerError
	if errors.As(err, &ae) {
		return ae.status
	}
	return 0
}

// HTTPError is a response whose status is not 2xx, after redirects.
type HTTPError struct {
	URL        string      // final URL, without user:password
	StatusCode int         // e.g. 404
	Status     string      // e.g. "404 Not Found", sanitised
	Header     http.Header // response headers, for Retry-After and the like
	// Location is where a redirect (a 3xx with a Location header) leads,
	// resolved and canonical; "" for any other answer.
	Location string
}

func (e *HTTPError) Error() string {
	return "fetch: GET " + e.URL + ": " + e.Status
}

// Is reports 404 and 410 as fs.ErrNotExist, so errors.Is(err, fs.ErrNotExist)
// says the page is gone.
func (e *HTTPError) Is(target error) bool {
	return target == fs.ErrNotExist && (e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusGone)
}

// Gone reports whether err says the page no longer exists: a 404 or 410.
func Gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}

// NotModified reports whether err is a 304 answer to a conditional GET.
func NotModified(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.StatusCode == http.StatusNotModified
}

// Transient reports whether err is worth retrying later: 5xx, 429 and 408
// statuses, timeouts (including a context deadline and a body below
// MinRate), connection refused or reset, DNS failures, and bodies cut
// short. A transient error is never
// evidence that a page is gone. Cancellation by the caller (context.Canceled)
// is not transient: it says nothing about the page.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		s := he.StatusCode
		return s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrRedirects) || errors.Is(err, ErrRefusedAddr) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTooSlow) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return true
	}
	for _, e := range []error{
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN, syscall.ETIMEDOUT,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op)
}

// redact returns raw without any user:password, for error text.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			if j := strings.Index(raw, "://"); j >= 0 && j < i {
				raw = raw[:j+3] + raw[i+1:]
			}
		}
		return clip(raw)
	}
	u.User = nil
	return clip(u.String())
}

// statusText returns "404 Not Found" from the response, keeping only
// printable ASCII of whatever reason phrase the server sent.
func statusText(resp *http.Response) string {
	s := strings.TrimSpace(resp.Status)
	if s == "" {
		s = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
	return clip(strings.TrimSpace(s))
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
