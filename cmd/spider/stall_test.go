package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
)

// stallPicker stops its pass at the first line it is offered, lock held,
// after saying so on stdout: a spider stopped in the middle of a pass.
type stallPicker struct{}

func (stallPicker) Due(*list.Entry) bool {
	fmt.Println("holding")
	select {} // until the test kills the process
}
func (stallPicker) Less(a, b *list.Entry) bool { return false }
func (stallPicker) Max() int                   { return 1 }

// stallInPass runs a pass on the list at path that stalls holding the lock.
func stallInPass(path string) {
	l, err := list.Open(path, list.Options{})
	if err == nil {
		err = l.Run(context.Background(), &list.Cycle{Spider: "stalled", Pick: stallPicker{}})
	}
	fmt.Fprintln(os.Stderr, "stallInPass:", err)
	os.Exit(3)
}

// startStalledHolder starts a process that takes the list's lock in a
// pass and stops there (and then SIGSTOP), and returns once it holds it.
func startStalledHolder(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SPIDER_TEST_STALL="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "holding\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// backdateHolder makes the stopped holder of the list's lock seem to have
// held it for d, editing the time it wrote in LIST.lock.
func backdateHolder(t *testing.T, path string, d time.Duration) {
	t.Helper()
	b, err := os.ReadFile(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 8 || f[6] != "since" {
		t.Fatalf("lock record %q", b)
	}
	since := fmt.Sprintf("%020d", time.Now().Add(-d).UnixNano())
	rec := strings.TrimSuffix(string(b), f[7]+"\n") + since + "\n"
	if err := os.WriteFile(path+".lock", []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A spider stopped in the middle of a pass, holding the list's lock, does
// not stop the readers, and a spider run with --for ends in time, saying
// who holds the lock.
func TestStalledHolderStopsNobody(t *testing.T) {
	_, base := newSite(t, sitetest.Options{Topics: 5})
	dir := t.TempDir()
	path := filepath.Join(dir, "spider.list")
	start, err := urlkey.Parse(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	l, err := list.Open(path, list.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(context.Background(), []list.Add{{URL: start, Level: 0}}); err != nil {
		t.Fatal(err)
	}
	holder := startStalledHolder(t, path)
	pid := holder.Process.Pid
	backdateHolder(t, path, time.Hour)

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"status"}, 0, "1 lines"},
		{[]string{"status"}, 0, fmt.Sprintf("STALLED: held by pid %d (spider -) for 1h0m", pid)},
		{[]string{"status", "--json"}, 0, `"lines": 1`},
		{[]string{"status", "--json"}, 0, fmt.Sprintf(`"pid": %d,`, pid)},
		{[]string{"show", start}, 0, start},
		{[]string{"list", "export"}, 0, start},
		{[]string{"list", "check", "--mirror", "m"}, 0, "1 lines"},
	} {
		code, out := spiderRun(t, dir, time.Minute, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("spider %v while the lock's holder is stopped: exit %d, output lacks %q:\n%s", tc.args, code, tc.want, out)
		}
	}

	code, out := spiderRun(t, dir, time.Minute, "--profile", "fast", "--mirror", "m", "--for", "2s", "--start", base+"/")
	for _, w := range []string{"gave up waiting for the lock", fmt.Sprintf("held by pid %d", pid), "hint:", fmt.Sprintf("kill -CONT %d", pid)} {
		if !strings.Contains(out, w) {
			t.Errorf("spider --for 2s waiting for a stopped holder: output lacks %q:\n%s", w, out)
		}
	}
	if code != exitFailure {
		t.Errorf("spider --for 2s that could not run a pass: exit %d, want %d", code, exitFailure)
	}
}

// The warning of a long wait names the holder; so does the hint of a wait
// given up.
func TestLockWaitMessages(t *testing.T) {
	var buf strings.Builder
	path := filepath.Join(t.TempDir(), "spider.list")
	w := list.LockWait{Path: path, Waited: 20 * time.Second, Holder: list.Holder{PID: 4242, Since: time.Now().Add(-time.Minute)}}
	warnLockWait(newLogger(&buf, 0, false, "text", false))(w)
	for _, want := range []string{"level=WARN", "waiting for the list's lock", "waited=20s", "holder_pid=4242", "held_for=1m0s"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("warning %q lacks %q", buf.String(), want)
		}
	}
	err := lockWaitErr(fmt.Errorf("pass: %w", &list.LockWaitError{LockWait: w, Err: context.DeadlineExceeded}))
	var he hintErr
	if !errors.As(err, &he) || !strings.Contains(he.hint, "pid 4242 holds") || !strings.Contains(he.hint, "kill -CONT 4242") {
		t.Errorf("hint of a given-up wait: %v", err)
	}
}
