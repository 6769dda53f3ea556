package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// TestMain lets the test binary act as the command, so that signal handling
// is tested on a real process.
func TestMain(m *testing.M) {
	if os.Getenv("TESTSITE_BE_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestCheckLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"127.0.0.2:8080", true},
		{"[::1]:0", true},
		{"localhost:0", true},
		{"0.0.0.0:0", false},
		{":8080", false},
		{"[::]:0", false},
		{"192.168.1.1:80", false},
		{"example.com:80", false},
		{"127.0.0.1", false}, // no port
	} {
		if err := checkLoopback(tc.addr); (err == nil) != tc.ok {
			t.Errorf("checkLoopback(%q) = %v, want ok %v", tc.addr, err, tc.ok)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-addr", "0.0.0.0:0"},
		{"-topics", "0"},
		{"-churn", "-1s"},
		{"-latency", "-1ms"},
		{"-shape", "blog"},
		{"-churn-mix", "chaos"},
		{"-nosuchflag"},
		{"extra"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, io.Discard, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("run %q: exit %d (%v), want 2", args, code, err)
		}
		if stderr.Len() == 0 {
			t.Errorf("run %q: nothing on stderr", args)
		}
	}
	if code := exitCode(run(context.Background(), []string{"-h"}, io.Discard, io.Discard), io.Discard); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a polling reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunServesAndChurns(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-churn", "10ms", "-topics", "12", "-ready-file", ready}, &stdout, io.Discard)
	}()

	var base string
	waitFor(t, "ready file", func() bool {
		b, err := os.ReadFile(ready)
		base = strings.TrimSpace(string(b))
		return err == nil
	})
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`).MatchString(base) {
		t.Fatalf("ready file holds %q", base)
	}
	if first, _, _ := strings.Cut(stdout.String(), "\n"); first != "listening on "+base {
		t.Errorf("first line %q, want %q", first, "listening on "+base)
	}
	resp, err := http.Get(base + "forum/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET /forum/: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	changeRE := regexp.MustCompile(`(?m)^change: (added|edited|deleted) /topic/\d+-\S+$`)
	waitFor(t, "three changes", func() bool { return len(changeRE.FindAllString(stdout.String(), -1)) >= 3 })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	if _, err := os.Stat(ready); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ready file left behind: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		if !changeRE.MatchString(l) {
			t.Errorf("unexpected output line %q", l)
		}
	}
	// One request was made, answered 200.
	if last, want := lines[len(lines)-1], "served: 1 requests, 1 distinct URIs answered 200, 0 other answers"; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
}

func TestChurnRotation(t *testing.T) {
	s := sitetest.New(sitetest.Options{})
	c := &churner{site: s}
	home := func() string { b, _ := s.Body("/"); return string(b) }

	if got := c.step(); got != "added /topic/31-churn-topic-1" {
		t.Errorf("step 1 = %q", got)
	}
	if !strings.Contains(home(), "/topic/31-churn-topic-1") {
		t.Errorf("added topic not announced on home")
	}

	before := home()
	levels := s.Levels()
	got := c.step()
	edited, ok := strings.CutPrefix(got, "edited ")
	if !ok {
		t.Fatalf("step 2 = %q", got)
	}
	if levels[edited] <= fastDepth {
		t.Errorf("edited %s at level %d, want one deeper than %d", edited, levels[edited], fastDepth)
	}
	if home() != before {
		t.Errorf("silent edit changed the home page")
	}
	if b, _ := s.Body(edited); !strings.Contains(string(b), "revision 2") {
		t.Errorf("edited topic shows no new revision")
	}

	got = c.step()
	deleted, ok := strings.CutPrefix(got, "deleted ")
	if !ok {
		t.Fatalf("step 3 = %q", got)
	}
	if _, ok := s.Body(deleted); ok {
		t.Errorf("deleted %s still served", deleted)
	}
	if got := c.step(); !strings.HasPrefix(got, "added /topic/32-") {
		t.Errorf("step 4 = %q, want the rotation to restart", got)
	}
}

// TestSignal runs the command as a real process and stops it with SIGTERM.
func TestSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on windows")
	}
	cmd := exec.Command(os.Args[0], "-churn", "0", "-latency", "1h")
	cmd.Env = append(os.Environ(), "TESTSITE_BE_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on http://127.0.0.1:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	// A request sleeping off -latency must not hold up the shutdown.
	go func() {
		if resp, err := http.Get(strings.TrimSpace(strings.TrimPrefix(line, "listening on "))); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(50 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr %q", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit 10s after SIGTERM")
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-describe"}, "site: forum, 30 topics, 47 paths (1 images), deepest level 5\n"},
		{[]string{"-describe", "-shape", "articles", "-topics", "200"}, "site: articles, 200 topics, 434 paths (201 images), deepest level 10\n"},
		{[]string{"-shape", "forum", "-describe", "-topics", "100"}, "site: forum, 100 topics, 147 paths (1 images), deepest level 12\n"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), tc.args, &stdout, &stderr); err != nil {
			t.Errorf("run %q: %v, stderr %q", tc.args, err, stderr.String())
		}
		if stdout.String() != tc.want {
			t.Errorf("run %q printed %q, want %q", tc.args, stdout.String(), tc.want)
		}
	}
}

// The rotation of changes works on the articles shape too: an added
// article is announced, a deep one edited, and a deleted one answers 404
// with its image.
func TestChurnRotationArticles(t *testing.T) {
	s := sitetest.New(sitetest.Options{Shape: sitetest.Articles, Topics: 200})
	c := &churner{site: s}
	h := s.Handler()
	status := func(p string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		return w.Code
	}
	if got := c.step(); got != "added /article/201-churn-topic-1" {
		t.Errorf("step 1 = %q", got)
	}
	if b, _ := s.Body("/"); !strings.Contains(string(b), "/article/201-churn-topic-1") {
		t.Errorf("added article not announced on home")
	}
	levels := s.Levels()
	edited, ok := strings.CutPrefix(c.step(), "edited ")
	if !ok || levels[edited] <= fastDepth {
		t.Errorf("step 2 edited %q at level %d, want an article deeper than %d", edited, levels[edited], fastDepth)
	}
	if b, _ := s.Body(edited); !strings.Contains(string(b), "revision 2") {
		t.Errorf("edited article shows no new revision")
	}
	deleted, ok := strings.CutPrefix(c.step(), "deleted /article/")
	if !ok {
		t.Fatalf("step 3 deleted no article")
	}
	id, _, _ := strings.Cut(deleted, "-")
	if status("/article/"+deleted) != 404 || status("/media/"+id+".png") != 404 {
		t.Errorf("deleted article %s or its image still served", deleted)
	}
}
