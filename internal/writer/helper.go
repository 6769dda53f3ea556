package writer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

var errNoIdle = errors.New("writer: this system has no idle CPU priority for a helper")

// extraEnv is added to a helper's environment (this package's tests).
var extraEnv []string

// helper is the caller's side of a helper process.
type helper struct {
	cmd   *exec.Cmd
	in    *os.File // the helper's fdGroups
	out   *os.File // its fdAnswers
	r     *bufio.Reader
	buf   []byte
	hello chan error    // its greeting, once read: nil if it runs at idle priority
	up    bool          // the greeting said so
	done  chan struct{} // closed once it has exited
	err   error         // how it exited, once done
	log   *tail         // what it wrote on its stderr
}

// startHelper starts a helper for the mirror whose directory is open as
// root. It does not wait for the helper to greet: the groups committed
// until then are the caller's (Writer.Commit).
func startHelper(root *os.File) (*helper, error) {
	fail := func(err error) (*helper, error) { return nil, fmt.Errorf("writer: start helper: %w", err) }
	// This very binary, even if the file was replaced since it started.
	exe, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		exe = "/proc/self/exe"
	}
	// Pipes of os.Pipe take deadlines.
	groupsR, groupsW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	answersR, answersW, err := os.Pipe()
	if err != nil {
		groupsR.Close()
		groupsW.Close()
		return fail(err)
	}
	h := &helper{in: groupsW, out: answersR, r: bufio.NewReaderSize(answersR, 64<<10),
		hello: make(chan error, 1), done: make(chan struct{}), log: &tail{}}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), EnvHelper+"="+protocol), extraEnv...)
	// Its stderr is not the caller's: a helper that outlives a killed
	// caller for a moment must not hold the caller's stderr open.
	cmd.Stderr = h.log
	cmd.ExtraFiles = []*os.File{groupsR, answersW, root} // fdGroups, fdAnswers, fdMirror
	cmd.SysProcAttr = helperAttr()
	h.cmd = cmd
	err = cmd.Start()
	groupsR.Close()
	answersW.Close()
	if err != nil {
		groupsW.Close()
		answersR.Close()
		return fail(err)
	}
	go func() {
		h.err = cmd.Wait()
		close(h.done)
	}()
	go func() {
		b := make([]byte, len(greeting(true)))
		_, err := io.ReadFull(h.r, b)
		switch {
		case err != nil:
		case !bytes.Equal(b[:len(protocol)], []byte(protocol)):
			err = fmt.Errorf("greeting %q is not %q", b[:len(protocol)], protocol)
		case b[len(b)-1] != 1:
			err = errors.New("it cannot run at idle priority, or write unnamed files, here")
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
	if err := errors.Join(h.in.SetWriteDeadline(deadline), h.out.SetReadDeadline(deadline)); err != nil {
		return nil, err // without a deadline, a stalled helper would stall Commit
	}
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
		return fmt.Errorf("no answer within %v (at idle priority it gets a CPU only when nothing else "+
			"wants one; or the disk is slow)", limit)
	}
	select {
	case <-h.done:
		return fmt.Errorf("the helper ended (%s): %w", h.exit(), err)
	default:
		return err
	}
}

// exit says how the helper exited, with the end of its stderr. Only once
// done.
func (h *helper) exit() string {
	if s := h.log.String(); s != "" {
		return fmt.Sprintf("%v: %s", h.err, s)
	}
	return fmt.Sprint(h.err)
}

// kill kills the helper, without waiting for it to exit: at idle
// priority on a busy machine that can take seconds, and what it may still
// do meanwhile (finish the link it was making) cannot put anything over a
// file, since it writes new files only.
func (h *helper) kill() {
	h.cmd.Process.Kill()
	go func() {
		<-h.done
		h.in.Close()
		h.out.Close()
	}()
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
		return fmt.Errorf("writer: helper: %s", h.exit())
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
