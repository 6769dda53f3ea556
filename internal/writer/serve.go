package writer

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spider-mirror/spider/mirror"
)

// EnvHelper names the environment variable that makes a process started
// by Start a helper; it holds the protocol's version.
const EnvHelper = "SPIDER_MIRROR_WRITER"

// The helper's files: groups in, answers out, and the mirror's directory,
// as its caller has it open (stdin and stdout are /dev/null, so that
// nothing printed by mistake can garble the answers).
const (
	fdGroups  = 3
	fdAnswers = 4
	fdMirror  = 5
)

// Hooks for this package's tests, which set them in the helper (their
// TestMain); a program never does.
var (
	hookNoIdle    bool // do not go idle, and greet as if idle
	hookHold      bool // never greet
	hookStopAfter int  // commit the first n files of a larger group, then stop answering
)

// Serve makes the process a helper, and never returns, if Start started
// it; otherwise it returns at once. A program that uses Start calls it
// first thing in main (and a test binary in TestMain): the helper is the
// program itself, started again.
func Serve() {
	if os.Getenv(EnvHelper) == "" {
		return
	}
	// A terminal's ^C and a service manager's SIGTERM reach the helper
	// too; its caller, stopping gracefully, still has groups to send.
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	in, out := os.NewFile(fdGroups, "groups"), os.NewFile(fdAnswers, "answers")
	if os.Getenv(EnvHelper) != protocol || in == nil || out == nil {
		fmt.Fprintf(os.Stderr, "spider: mirror writer: started by another version (protocol %q, want %q)\n",
			os.Getenv(EnvHelper), protocol)
		os.Exit(2)
	}
	if hookHold {
		io.Copy(io.Discard, in)
		os.Exit(0)
	}
	os.Exit(serve(in, out, fmt.Sprintf("/proc/self/fd/%d", fdMirror), os.Stderr))
}

// serve answers the groups read from in until it ends, writing into the
// mirror directory dir, and returns the process's exit code.
func serve(in io.Reader, out io.Writer, dir string, stderr io.Writer) int {
	idle := hookNoIdle || setIdle()
	m, err := mirror.OpenSwept(dir)
	if err != nil {
		fmt.Fprintf(stderr, "spider: mirror writer: %v\n", err)
		return 1
	}
	defer m.Close()
	os.NewFile(fdMirror, "mirror").Close() // the Root has its own
	// Without unnamed files it could write no file as a new file only.
	usable := idle && m.Unnamed()
	if _, err := out.Write(greeting(usable)); err != nil || !usable {
		return 0 // the caller writes itself (Commit)
	}
	r := bufio.NewReaderSize(in, 1<<20)
	var reply []byte
	for n := 0; ; n++ {
		files, err := readGroup(r)
		if err == io.EOF {
			return 0 // the caller closed the writer
		}
		if err != nil {
			fmt.Fprintf(stderr, "spider: mirror writer: %v\n", err)
			return 1
		}
		if hookStopAfter > 0 && len(files) > hookStopAfter {
			commit(m, files[:hookStopAfter], true)
			io.Copy(io.Discard, r)
			return 0
		}
		reply = appendReply(reply[:0], commit(m, files, true))
		if _, err := out.Write(reply); err != nil {
			return 1 // the caller is gone
		}
		if n == 0 && !hookNoIdle {
			setIdle() // a thread the first reading missed, if any, is there now
		}
	}
}
