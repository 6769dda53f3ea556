package writer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/mirror"
)

// TestMain makes the test binary a helper when Start runs it as one, with
// the hooks a test asked for (extraEnv).
func TestMain(m *testing.M) {
	hookNoIdle = os.Getenv("WRITER_TEST_NOIDLE") != ""
	hookHold = os.Getenv("WRITER_TEST_HOLD") != ""
	hookStopAfter, _ = strconv.Atoi(os.Getenv("WRITER_TEST_STOP_AFTER"))
	Serve()
	os.Exit(m.Run())
}

// startWith starts a Writer whose helper gets env, and waits for its
// greeting. A helper at idle priority gets a CPU only when no other
// thread wants one, which a machine running tests rarely has to spare:
// but for TestHelperRunsIdle, helpers run at normal priority here
// (WRITER_TEST_NOIDLE).
func startWith(t *testing.T, m *mirror.Mirror, stall time.Duration, env ...string) *Writer {
	t.Helper()
	extraEnv = env
	w, err := Start(m, Options{Stall: stall})
	extraEnv = nil
	if !idleSupported {
		if err == nil || w.Helper() {
			t.Fatalf("Start without an idle class: helper %v, err %v", w.Helper(), err)
		}
		t.Skip("no idle CPU priority on this system: the helper is not used")
	}
	if err != nil || !w.Helper() {
		t.Fatalf("Start: helper %v, err %v", w.Helper(), err)
	}
	t.Cleanup(func() { w.Close() })
	select {
	case err := <-w.h.hello:
		if err != nil {
			if strings.Contains(err.Error(), "cannot run at idle priority") {
				t.Skipf("helper: %v", err)
			}
			t.Fatalf("helper: %v", err)
		}
		w.h.up = true
	case <-time.After(time.Minute):
		t.Fatal("the helper did not greet within a minute")
	}
	return w
}

// group returns n files under dir d, each with its own content.
func group(d string, n int) []File {
	files := make([]File, n)
	for i := range files {
		files[i] = File{Rel: fmt.Sprintf("%s/%d.html", d, i), Data: []byte(fmt.Sprintf("<p>page %d of %s</p>\n", i, d))}
	}
	return files
}

// commitOK commits files with w, and fails unless every one is then in
// the mirror at dir with its content.
func commitOK(t *testing.T, w *Writer, dir string, files []File) {
	t.Helper()
	for i, err := range w.Commit(files) {
		if err != nil {
			t.Fatalf("%s: %v", files[i].Rel, err)
		}
	}
	wantWritten(t, dir, files)
}

// wantWritten fails unless every file is in the mirror at dir with its
// content.
func wantWritten(t *testing.T, dir string, files []File) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Rel)))
		if err != nil || !bytes.Equal(b, f.Data) {
			t.Fatalf("%s: %q, %v; want %q", f.Rel, b, err, f.Data)
		}
	}
}

func openMirror(t *testing.T) (*mirror.Mirror, string) {
	t.Helper()
	dir := t.TempDir()
	m, err := mirror.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, dir
}

// start starts a Writer with a helper at normal priority (startWith).
func start(t *testing.T, m *mirror.Mirror, stall time.Duration) *Writer {
	t.Helper()
	return startWith(t, m, stall, "WRITER_TEST_NOIDLE=1")
}

// TestCommitsBeforeGreeting: the groups sent before the helper has said
// that it runs are written by the caller.
func TestCommitsBeforeGreeting(t *testing.T) {
	m, dir := openMirror(t)
	extraEnv = []string{"WRITER_TEST_HOLD=1"}
	w, err := Start(m, Options{Stall: 100 * time.Millisecond})
	extraEnv = nil
	if !idleSupported {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	files := group("g", 10)
	commitOK(t, w, dir, files)
	if !w.Helper() {
		t.Fatal("a helper still starting was given up")
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close of a helper that never greeted: %v", err)
	}
}

func TestHelperCommits(t *testing.T) {
	m, dir := openMirror(t)
	w := start(t, m, 10*time.Second)
	for round := range 3 {
		files := group(fmt.Sprintf("h/r%d", round), 20+round*200) // a plain fsync each, then syncfs groups
		files = append(files, File{Rel: "../outside.html", Data: []byte("no")})
		errs := w.Commit(files)
		if len(errs) != len(files) {
			t.Fatalf("round %d: %d errors for %d files", round, len(errs), len(files))
		}
		for i, err := range errs[:len(errs)-1] {
			if err != nil {
				t.Fatalf("round %d: %s: %v", round, files[i].Rel, err)
			}
		}
		if errs[len(errs)-1] == nil {
			t.Fatalf("round %d: a name outside the mirror was accepted", round)
		}
		wantWritten(t, dir, files[:len(files)-1])
		if !w.Helper() {
			t.Fatalf("round %d: the helper was given up", round)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.html")); err == nil {
		t.Fatal("a file was written outside the mirror")
	}
	// Names that exist, sent to the helper alone: it leaves every one to
	// the caller, untouched.
	exist := group("h/r0", 20)
	for i := range exist {
		exist[i].Data = []byte("not to be written by the helper\n")
	}
	answers, err := w.h.commit(exist, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range answers {
		if !errors.Is(err, errYours) {
			t.Fatalf("%s, which exists: the helper answered %v, want errYours", exist[i].Rel, err)
		}
	}
	wantWritten(t, dir, group("h/r0", 20))
	// The same names again, with new ones, through Commit: the helper
	// writes the new ones, the caller replaces the others.
	files := append(group("h/r0", 20), group("h/r9", 5)...)
	for i := range files {
		files[i].Data = append(files[i].Data, "changed\n"...)
	}
	commitOK(t, w, dir, files)
	if !w.Helper() {
		t.Fatal("the helper was given up over names that exist (the caller writes those)")
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestHelperRunsIdle checks that every thread of the helper is in the
// idle class.
func TestHelperRunsIdle(t *testing.T) {
	m, _ := openMirror(t)
	w := startWith(t, m, time.Minute)
	pid := w.h.cmd.Process.Pid
	w.Commit(group("h", 10)) // the helper has done some work: its threads are up
	if !w.Helper() {
		t.Fatal("the helper was given up")
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/sched", pid, task.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "\npolicy") {
			t.Skip("no policy in /proc/PID/task/TID/sched here")
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "policy" && f[2] != "5" { // SCHED_IDLE
				t.Errorf("thread %s of the helper: policy %s, want 5 (SCHED_IDLE)", task.Name(), f[2])
			}
		}
		tid, _ := strconv.Atoi(task.Name())
		prio, _, errno := syscall.Syscall(syscall.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
		if errno != 0 {
			t.Fatalf("ioprio_get(%d): %v", tid, errno)
		}
		if prio != ioprioBestEffort {
			t.Errorf("thread %s of the helper: I/O priority %#x, want %#x (best effort, 4)", task.Name(), prio, ioprioBestEffort)
		}
	}
}

// TestHelperStalled stops the helper (SIGSTOP, as a machine that gives it
// no CPU would): the group waits the stall, then the caller writes it and
// every group after it, and the helper is gone.
func TestHelperStalled(t *testing.T) {
	m, dir := openMirror(t)
	w := start(t, m, 200*time.Millisecond)
	h := w.h
	if err := h.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	files := group("s", 50)
	commitOK(t, w, dir, files)
	if w.Helper() {
		t.Fatal("the stalled helper is still used")
	}
	waitExit(t, h)
	more := group("s2", 10)
	commitOK(t, w, dir, more)
}

// waitExit fails unless the helper h exits (killed) within a minute.
func waitExit(t *testing.T, h *helper) {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(time.Minute):
		t.Fatal("the helper given up did not exit within a minute")
	}
}

// TestHelperStopsMidGroup: a helper that has put part of a group in place
// and then stops answering (WRITER_TEST_STOP_AFTER) is killed, and the
// caller writes the whole group, so every file is complete and current,
// those the helper linked, those it left alone because they existed (it
// writes new files only) and those it never reached.
func TestHelperStopsMidGroup(t *testing.T) {
	m, dir := openMirror(t)
	w := startWith(t, m, time.Minute, "WRITER_TEST_NOIDLE=1", "WRITER_TEST_STOP_AFTER=600")
	h := w.h
	old := group("k", 300)
	for i := range old {
		old[i].Data = []byte("old copy\n")
	}
	commitOK(t, w, dir, old) // under the hook's size: answered
	if !w.Helper() {
		t.Fatal("the helper was given up before the group it is to stop in")
	}
	// A short stall for the group it stops in, once the first, which a
	// busy machine may take a while over, is done.
	w.mu.Lock()
	w.stall = 200 * time.Millisecond
	w.mu.Unlock()
	files := group("k", 1000) // 300 to replace, 300 new linked by the helper, then no answer
	commitOK(t, w, dir, files)
	if w.Helper() {
		t.Fatal("the helper that stopped answering is still used")
	}
	waitExit(t, h)
	wantWritten(t, dir, files) // nothing it did on its way out changed a file
	// No temp file is left beside the pages.
	ents, err := os.ReadDir(filepath.Join(dir, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(files) {
		t.Fatalf("%d entries in k/, want %d", len(ents), len(files))
	}
}

// TestOversizeStaysHere: a name longer than the helper reads is written by
// the caller, and the helper goes on.
func TestOversizeStaysHere(t *testing.T) {
	m, dir := openMirror(t)
	w := start(t, m, 10*time.Second)
	files := []File{{Rel: "h/" + strings.Repeat("x", maxName) + ".html", Data: []byte("long")}}
	if errs := w.Commit(files); len(errs) != 1 || errs[0] == nil {
		t.Fatalf("a name longer than the file system takes: %v, want an error", errs)
	}
	if !w.Helper() {
		t.Fatal("the helper was given up over a name it was not sent")
	}
	ok := group("h", 3)
	commitOK(t, w, dir, ok)
}

// TestHelperIgnoresStopSignals: ^C reaches the helper too, and the spider
// stopping gracefully still commits through it.
func TestHelperIgnoresStopSignals(t *testing.T) {
	m, dir := openMirror(t)
	w := start(t, m, 10*time.Second)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if err := w.h.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	files := group("i", 10)
	commitOK(t, w, dir, files)
	if !w.Helper() {
		t.Fatal("the helper was given up after a stop signal")
	}
}

func TestLocal(t *testing.T) {
	m, dir := openMirror(t)
	w := Local(m)
	files := append(group("l", 12), File{Rel: "/abs.html", Data: []byte("no")})
	errs := w.Commit(files)
	for i, err := range errs[:len(files)-1] {
		if err != nil {
			t.Fatalf("%s: %v", files[i].Rel, err)
		}
	}
	if errs[len(files)-1] == nil {
		t.Fatal("an absolute name was accepted")
	}
	wantWritten(t, dir, files[:len(files)-1])
	if w.Helper() || w.Close() != nil {
		t.Fatal("a local writer has a helper")
	}
}

func TestLimit(t *testing.T) {
	page := File{Data: make([]byte, 1000)}
	for _, c := range []struct {
		n    int
		size int
		want time.Duration
	}{
		{0, 0, time.Second},
		{1000, 0, time.Second},
		{1001, 0, time.Second + 200*time.Microsecond},
		{6000, 0, 2 * time.Second},
		{1, 16 << 20, 2 * time.Second},
	} {
		files := make([]File, c.n)
		for i := range files {
			files[i] = page
			files[i].Data = nil
		}
		if c.size > 0 {
			files[0].Data = make([]byte, c.size)
		}
		if got := limit(time.Second, files); got != c.want {
			t.Errorf("limit(1s, %d files, %d bytes) = %v, want %v", c.n, c.size, got, c.want)
		}
	}
}
