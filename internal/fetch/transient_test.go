package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("fetch: GET http://x/: %w", err) }
	opErr := func(err error) error {
		return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", err)}
	}
	tests := []struct {
		name            string
		err             error
		transient, gone bool
	}{
		{"nil", nil, false, false},
		{"404", &HTTPError{StatusCode: 404}, false, true},
		{"410", &HTTPError{StatusCode: 410}, false, true},
		{"wrapped 410", wrap(&HTTPError{StatusCode: 410}), false, true},
		{"500", &HTTPError{StatusCode: 500}, true, false},
		{"599", &HTTPError{StatusCode: 599}, true, false},
		{"429", &HTTPError{StatusCode: 429}, true, false},
		{"408", &HTTPError{StatusCode: 408}, true, false},
		{"403", &HTTPError{StatusCode: 403}, false, false},
		{"304", &HTTPError{StatusCode: 304}, false, false},
		{"deadline", wrap(context.DeadlineExceeded), true, false},
		{"canceled", wrap(context.Canceled), false, false},
		{"canceled inside op error", wrap(&net.OpError{Op: "dial", Err: context.Canceled}), false, false},
		{"refused", wrap(opErr(syscall.ECONNREFUSED)), true, false},
		{"reset", wrap(opErr(syscall.ECONNRESET)), true, false},
		{"bare reset", wrap(syscall.ECONNRESET), true, false},
		{"dns", wrap(&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}), true, false},
		{"unexpected eof", wrap(io.ErrUnexpectedEOF), true, false},
		{"eof", wrap(io.EOF), true, false},
		{"too large", wrap(ErrTooLarge), false, false},
		{"redirects", wrap(fmt.Errorf("%w: loop", ErrRedirects)), false, false},
		{"other", errors.New("fetch: something odd"), false, false},
		{"plain not-exist is gone", wrap(fs.ErrNotExist), false, true},
		{"too large after a 200", wrap(&answerError{200, &limitError{"body over limit 1", ErrTooLarge}}), false, false},
		{"reset in a 200's body", wrap(&answerError{200, opErr(syscall.ECONNRESET)}), true, false},
	}
	for _, tt := range tests {
		if got := Transient(tt.err); got != tt.transient {
			t.Errorf("%s: Transient = %v, want %v", tt.name, got, tt.transient)
		}
		if got := Gone(tt.err); got != tt.gone {
			t.Errorf("%s: Gone = %v, want %v", tt.name, got, tt.gone)
		}
	}
}

// Status is the status the server answered with, also when the body then
// failed; 0 when no server answered.
func TestStatusOfError(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("fetch: GET http://x/: %w", err) }
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"404", wrap(&HTTPError{StatusCode: 404}), 404},
		{"body over the limit", wrap(&answerError{200, &limitError{"body over limit 1", ErrTooLarge}}), 200},
		{"body cut", wrap(&answerError{206, io.ErrUnexpectedEOF}), 206},
		{"refused", wrap(syscall.ECONNREFUSED), 0},
		{"redirects", wrap(&limitError{"stopped after 10 redirects", ErrRedirects}), 0},
	}
	for _, tt := range tests {
		if got := Status(tt.err); got != tt.want {
			t.Errorf("%s: Status = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/a", "http://example.com/a"},
		{"http://user:pw@example.com/a", "http://example.com/a"},
		{"http://user@example.com/a", "http://example.com/a"},
		{"http://user:pw@exa mple.com/%zz", "http://exa mple.com/%zz"},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
