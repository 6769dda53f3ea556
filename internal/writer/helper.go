package writer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

var errNoIdle = errors.New("writer: this system has no idle CPU priority for a helper")

// helper is the caller's side of a helper process.
type helper struct {
	cmd   *exec.Cmd
	in    *os.File // the helper's stdin: groups
	out   *os.File // its stdout: answers
	r     *bufio.Reader
	buf   []byte
	hello chan error    // its greeting, once read: nil if it runs at idle priority
	up    bool          // the greeting said so
	done  chan struct{} // closed once it has exited
	err   error         // how it exited, once done
	log   *tail         // what it wrote on its stderr
}

// startHelper starts a helper for the mirror directory dir. It does not
// wait for the helper to say that it runs at idle priority: the groups
// committed until then are the caller's (Writer.Commit).
func startHelper(dir string) (*helper, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("writer: start helper: %w", err)
	}
	// Pipes of os.Pipe, unlike exec's, take deadlines.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("writer: start helper: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("writer: start helper: %w", err)
	}
	h := &helper{in: inW, out: outR, r: bufio.NewReaderSize(outR, 64<<10),
		hello: make(chan error, 1), done: make(chan struct{}), log: &tail{}}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), EnvHelper+"="+dir), extraEnv...)
	// Its stderr is not the caller's: a helper that outlives a killed
	// caller for a moment must not hold the caller's stderr open.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, h.log
	cmd.SysProcAttr = helperAttr()
	h.cmd = cmd
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("writer: start helper: %w", err)
	}
	go func() {
		h.err = cmd.Wait()
		close(h.done)
	}()
	go func() {
		b, err := h.r.ReadByte()
		if err == nil && b != 1 {
			err = errors.New("it cannot run at idle priority here")
		}
		h.hello <- err
	}()
	return h, nil
}

// ready reports whether the helper has said that it runs at idle
// priority; an error if it has said otherwise or failed.
func (h *helper) ready() (bool, error) {
	if h.up {
		return true, nil
	}
	select {
	case err := <-h.hello:
		if err != nil {
			return false, h.why(fmt.Errorf("no greeting: %w", err), 0)
		}
		h.up = true
		return true, nil
	default:
		return false, nil
	}
}

// commit sends the helper a group and returns its answer, or an error if
// the answer did not come within limit.
func (h *helper) commit(files []File, limit time.Duration) ([]error, error) {
	deadline := time.Now().Add(limit)
	h.in.SetWriteDeadline(deadline)
	h.out.SetReadDeadline(deadline)
	h.buf = appendGroup(h.buf[:0], files)
	_, err := h.in.Write(h.buf)
	if cap(h.buf) > 4<<20 {
		h.buf = nil // a large group's buffer is not kept
	}
	if err != nil {
		return nil, h.why(err, limit)
	}
	errs, err := readReply(h.r, len(files))
	if err != nil {
		return nil, h.why(err, limit)
	}
	return errs, nil
}

// why says what an error of the exchange means.
func (h *helper) why(err error, limit time.Duration) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no answer within %v: the machine had no CPU to spare for it", limit)
	}
	select {
	case <-h.done:
		if s := h.log.String(); s != "" {
			return fmt.Errorf("the helper ended (%v: %s): %w", h.err, s, err)
		}
		return fmt.Errorf("the helper ended (%v): %w", h.err, err)
	default:
		return err
	}
}

// kill kills the helper and returns once it has exited: until then it
// could still link a file it has not made durable.
func (h *helper) kill() {
	h.cmd.Process.Kill()
	<-h.done
	h.in.Close()
	h.out.Close()
}

// close ends the helper's input and waits up to stall for it to exit, then
// kills it.
func (h *helper) close(stall time.Duration) error {
	h.in.Close()
	t := time.NewTimer(stall)
	defer t.Stop()
	select {
	case <-h.done:
	case <-t.C:
		h.cmd.Process.Kill()
		<-h.done
	}
	h.out.Close()
	if h.err != nil && h.up {
		return fmt.Errorf("writer: helper: %w", h.why(h.err, 0))
	}
	return nil
}

// tail keeps the end of what a helper writes on its stderr, for errors.
type tail struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if n := t.b.Len(); n > 4096 {
		t.b.Next(n - 4096)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(t.b.String())
}
