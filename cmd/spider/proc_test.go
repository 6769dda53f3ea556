package main

import (
	"bytes"
	"context"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// The test binary doubles as the spider binary: tests re-exec it with
// SPIDER_TEST_MAIN=1 to run real spider processes they can kill.
func TestMain(m *testing.M) {
	if os.Getenv("SPIDER_TEST_MAIN") == "1" {
		if n, err := strconv.ParseUint(os.Getenv("SPIDER_TEST_FSIZE"), 10, 64); err == nil {
			// A file size limit fails the mirror's writes as a full disk
			// would (EFBIG), without a disk to fill.
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				panic(err)
			}
		}
		main()
		return
	}
	if path := os.Getenv("SPIDER_TEST_STALL"); path != "" {
		stallInPass(path) // never returns
	}
	os.Exit(m.Run())
}

// proc is a spider process started by a test.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	done   chan struct{}
	exitOK bool
	code   int
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// startSpider runs the spider with args in dir. The process is killed when
// the test ends, if it is still running.
func startSpider(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "SPIDER_TEST_MAIN=1")
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		p.exitOK = err == nil
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		p.t.Fatalf("spider %v still running after %v; output:\n%s", p.cmd.Args[1:], timeout, p.output())
		return -1
	}
}

// spiderRun runs the spider to completion and returns its exit code and output.
func spiderRun(t *testing.T, dir string, timeout time.Duration, args ...string) (int, string) {
	t.Helper()
	p := startSpider(t, dir, args...)
	code := p.wait(timeout)
	return code, p.output()
}

// eventually polls cond until it holds or the timeout passes. It observes
// the processes' effects (the list, the mirror, the site's log); it does
// not stand in for synchronisation inside the program.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		if cond() {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("after %v: %s did not happen", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readList returns the list's entries, failing the test if it does not parse.
func readList(t *testing.T, path string) []list.Entry {
	t.Helper()
	l, err := list.Open(path, list.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var es []list.Entry
	if err := l.Scan(context.Background(), func(e *list.Entry) error { es = append(es, e.Clone()); return nil }); err != nil {
		t.Fatalf("list does not parse: %v", err)
	}
	return es
}

// checkOnce fails if a URL has two lines.
func checkOnce(t *testing.T, es []list.Entry) map[string]list.Entry {
	t.Helper()
	byURL := map[string]list.Entry{}
	for _, e := range es {
		if _, dup := byURL[e.URL]; dup {
			t.Errorf("URL %s has two lines", e.URL)
		}
		byURL[e.URL] = e
	}
	return byURL
}

// newSite serves a sitetest site on 127.0.0.1 for the test.
func newSite(t *testing.T, o sitetest.Options) (*sitetest.Site, string) {
	t.Helper()
	site := sitetest.New(o)
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	return site, srv.URL
}

// checkMirror fails unless every line with a file has that file in the
// mirror, and no temporary file is left by a writer that is gone (a
// running spider's group may be on its way to its names).
func checkMirror(t *testing.T, mirrorDir string, es []list.Entry) {
	t.Helper()
	for _, e := range es {
		if e.File == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(mirrorDir, filepath.FromSlash(e.File))); err != nil || fi.Size() == 0 {
			t.Errorf("%s: line says %s, mirror has %v", e.URL, e.File, err)
		}
	}
	filepath.WalkDir(mirrorDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".spider-tmp") && !writerAlive(d.Name()) {
			t.Errorf("temporary file left in the mirror: %s", p)
		}
		return nil
	})
}

// writerAlive reports whether the process that named the mirror's temp
// file name (".spider-tmp#PID-…") still runs.
func writerAlive(name string) bool {
	_, rest, _ := strings.Cut(name, "#")
	pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
	return err == nil && pid > 0 && syscall.Kill(pid, 0) == nil
}

func sendSignal(t *testing.T, p *proc, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// claimsOf counts the lines of es that spider claims.
func claimsOf(es []list.Entry, spider string) int {
	n := 0
	for _, e := range es {
		if e.Spider == spider {
			n++
		}
	}
	return n
}

// mirrored reports whether every page of site has a line with a copy in
// the list that read returns.
func mirrored(site *sitetest.Site, base string, read func() []list.Entry) func() bool {
	return func() bool {
		byURL := map[string]list.Entry{}
		for _, e := range read() {
			byURL[e.URL] = e
		}
		for _, p := range site.Paths() {
			if e, ok := byURL[base+p]; !ok || e.File == "" {
				return false
			}
		}
		return true
	}
}

// inState reports whether url's line, in the list that read returns, is
// in state st.
func inState(url string, st list.State, read func() []list.Entry) func() bool {
	return func() bool {
		for _, e := range read() {
			if e.URL == url {
				return e.State == st
			}
		}
		return false
	}
}

// stopAll stops the spiders with SIGTERM, each of which must exit 0, and
// checks the list read returns then: every URL once, no claim left, every
// copy it names in the mirror.
func stopAll(t *testing.T, mirrorDir string, read func() []list.Entry, ps ...*proc) {
	t.Helper()
	for _, p := range ps {
		sendSignal(t, p, syscall.SIGTERM)
	}
	for _, p := range ps {
		if code := p.wait(20 * time.Second); code != 0 {
			t.Errorf("spider %v exited %d after SIGTERM; output:\n%s", p.cmd.Args[1:3], code, p.output())
		}
	}
	es := read()
	checkOnce(t, es)
	for _, e := range es {
		if e.Spider != "" {
			t.Errorf("claim left after a graceful stop: %+v", e)
		}
	}
	checkMirror(t, mirrorDir, es)
}
