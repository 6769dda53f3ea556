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
// by Start a helper: it holds the mirror's directory.
const EnvHelper = "SPIDER_MIRROR_WRITER"

// envHold, set too, makes a helper that never greets, for tests; extraEnv
// is added to a helper's environment.
const envHold = EnvHelper + "_HOLD"

var extraEnv []string

// Serve makes the process a helper, and never returns, if Start started
// it; otherwise it returns at once. A program that uses Start calls it
// first thing in main (and a test binary in TestMain): the helper is the
// program itself, started again.
func Serve() {
	dir := os.Getenv(EnvHelper)
	if dir == "" {
		return
	}
	// A terminal's ^C and a service manager's SIGTERM reach the helper
	// too; its caller, stopping gracefully, still has groups to send.
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if os.Getenv(envHold) != "" {
		io.Copy(io.Discard, os.Stdin) // never greets (tests)
		os.Exit(0)
	}
	os.Exit(serve(dir, os.Stdin, os.Stdout, os.Stderr))
}

// serve answers the groups read from in until it ends, and returns the
// process's exit code.
func serve(dir string, in io.Reader, out io.Writer, stderr io.Writer) int {
	idle := setIdle()
	m, err := mirror.OpenSwept(dir)
	if err != nil {
		fmt.Fprintf(stderr, "spider: mirror writer: %v\n", err)
		return 1
	}
	defer m.Close()
	hello := []byte{0}
	if idle {
		hello[0] = 1
	}
	if _, err := out.Write(hello); err != nil || !idle {
		return 0 // not idle: the caller writes itself (Start)
	}
	r := bufio.NewReaderSize(in, 1<<20)
	var reply []byte
	for {
		files, err := readGroup(r)
		if err == io.EOF {
			return 0 // the caller closed the writer, or ended
		}
		if err != nil {
			fmt.Fprintf(stderr, "spider: mirror writer: %v\n", err)
			return 1
		}
		reply = appendReply(reply[:0], commit(m, files))
		if _, err := out.Write(reply); err != nil {
			return 1 // the caller is gone
		}
	}
}

// commit commits files in one mirror.Group and returns their errors.
func commit(m *mirror.Mirror, files []File) []error {
	errs := make([]error, len(files))
	g := m.Group()
	staged := make([]int, 0, len(files))
	for i, f := range files {
		if _, err := g.Stage(f.Rel, f.Data); err != nil {
			errs[i] = err
			continue
		}
		staged = append(staged, i)
	}
	for k, err := range g.Commit() {
		errs[staged[k]] = err
	}
	return errs
}
