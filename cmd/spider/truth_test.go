package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
)

// deadURL returns a loopback URL on which nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

// A dead start URL ends the run at once with exit 1, an error naming it
// and a hint, whether or not the run was to stop by itself.
func TestDeadStartFails(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
			return
		}
		fmt.Fprint(w, "<p>hidden")
	}))
	defer forbidden.Close()
	for _, tc := range []struct {
		name, start, why, hint string
	}{
		{"refused", deadURL(t), "connection refused", "spider: hint: check the start URL"},
		{"404", notFound.URL + "/", "404 Not Found", "spider: hint: check the start URL"},
		{"robots", forbidden.URL + "/", "disallowed by robots.txt", "spider: hint: the site's robots.txt forbids the start URL"},
	} {
		for _, mode := range [][]string{{"--until-idle"}, {"--for", "60s"}} {
			dir := t.TempDir()
			start := time.Now()
			code, out := spiderRun(t, dir, time.Minute, append([]string{"--profile", "fast", "--delay", "0", "--start", tc.start}, mode...)...)
			if code != 1 || !strings.Contains(out, "spider: error: the start URL could not be fetched: "+tc.start) ||
				!strings.Contains(out, tc.why) || !strings.Contains(out, tc.hint) {
				t.Errorf("%s %v: exit %d after %v, want 1 with the start URL, %q and a hint:\n%s", tc.name, mode, code, time.Since(start), tc.why, clipOut(out))
			}
			if lines := readList(t, dir+"/spider.list"); len(lines) != 1 || lines[0].Spider != "" {
				t.Errorf("%s %v: list %+v, want the start line, unclaimed", tc.name, mode, lines)
			}
			if tc.name != "refused" {
				continue
			}
			// Run again at once: the line waits for its retry, and the
			// run says why rather than end quietly.
			again := []string{"--profile", "fast", "--delay", "0", "--start", tc.start, "--until-idle"}
			if mode[0] == "--for" {
				again[len(again)-1] = "--for=1s"
			}
			code, out = spiderRun(t, dir, time.Minute, again...)
			if code != 1 || !strings.Contains(out, "spider: error: the start URL could not be fetched: "+tc.start) || !strings.Contains(out, tc.why) ||
				!strings.Contains(out, "next attempt after 2") || strings.Contains(out, "0001-01-01") {
				t.Errorf("%s %v, run again: exit %d, want 1 naming the failure and the next attempt:\n%s", tc.name, mode, code, clipOut(out))
			}
		}
	}
}

// A start URL seeded into a list whose other lines are fetched fine stops
// only the run that had nothing else to do: a run that also refreshes the
// other lines goes on, and exits 0, while the seeded URL waits for its
// retry.
func TestDeadSeededStart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)
		case "/a", "/b", "/c":
			fmt.Fprint(w, "<p>page")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	base := []string{"--profile", "slow", "--delay", "0"}
	if code, out := spiderRun(t, dir, time.Minute, append(base, "--until-idle", "--start", srv.URL+"/")...); code != 0 {
		t.Fatalf("first mirror: exit %d:\n%s", code, clipOut(out))
	}
	typo := srv.URL + "/typo"
	if code, out := spiderRun(t, dir, time.Minute, "seed", typo); code != 0 {
		t.Fatalf("seed: exit %d:\n%s", code, clipOut(out))
	}
	code, out := spiderRun(t, dir, time.Minute, append(base, "--until-idle")...)
	if code != 1 || !strings.Contains(out, "spider: error: the start URL could not be fetched: "+typo) {
		t.Errorf("nothing else due: exit %d, want 1 naming the seeded URL:\n%s", code, clipOut(out))
	}
	code, out = spiderRun(t, dir, time.Minute, append(base, "--cycles", "3", "--window", "1ms", "--shortest", "1ms")...)
	if code != 0 || strings.Contains(out, "error") {
		t.Errorf("every other line due: exit %d, want 0 and no error:\n%s", code, clipOut(out))
	}
	if lines := readList(t, dir+"/spider.list"); len(lines) != 5 {
		t.Errorf("list %+v, want the 4 pages and the seeded URL", lines)
	}
}

// An --until-idle run whose every fetch failed exits 1 with a hint; one
// with nothing due exits 0.
func TestUntilIdleNothingFetched(t *testing.T) {
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<a href="/a">a</a>`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	args := []string{"--profile", "slow", "--delay", "0", "--until-idle"}
	if code, out := spiderRun(t, dir, time.Minute, append(args, "--start", srv.URL+"/")...); code != 0 {
		t.Fatalf("healthy run: exit %d:\n%s", code, out)
	}
	if code, out := spiderRun(t, dir, time.Minute, args...); code != 0 || strings.Contains(out, "error") {
		t.Errorf("nothing due: exit %d, want 0:\n%s", code, out)
	}
	broken.Store(true)
	code, out := spiderRun(t, dir, time.Minute, append(args, "--window", "1ms")...)
	if code != 1 || !strings.Contains(out, "spider: error: nothing fetched: 2 attempts failed, the first http://") ||
		!strings.Contains(out, "500 Internal Server Error") || !strings.Contains(out, "spider: hint: spider status") {
		t.Errorf("every fetch failed: exit %d, want 1 with an error and a hint:\n%s", code, clipOut(out))
	}
}

func TestRunVerdict(t *testing.T) {
	failedAll := crawl.Summary{Failed: 3, FirstFailure: "http://h/: 503 Service Unavailable"}
	for _, tc := range []struct {
		name      string
		sum       crawl.Summary
		err       error
		signalled bool
		want      string // "" = nil
	}{
		{"all well", crawl.Summary{Fetched: 3, Failed: 1}, nil, false, ""},
		{"nothing due", crawl.Summary{}, nil, false, ""},
		{"only unchanged", crawl.Summary{Unchanged: 2, Failed: 2}, nil, false, ""},
		{"only archived", crawl.Summary{Archived: 1}, nil, false, ""},
		{"all failed", failedAll, nil, false, "nothing fetched: 3 attempts failed, the first http://h/: 503"},
		{"all failed, stopped by a signal", failedAll, nil, true, ""},
		{"start failed", crawl.Summary{Failed: 1}, fmt.Errorf("%w: http://h/: 404", crawl.ErrStartFailed), false, "the start URL could not be fetched"},
		{"mirror full", crawl.Summary{Fetched: 1}, fmt.Errorf("%w: disk full", crawl.ErrMirrorUnwritable), true, "the mirror cannot be written"},
		{"list", crawl.Summary{}, errors.New("list: broken"), false, "list: broken"},
	} {
		err := runVerdict(tc.sum, tc.err, tc.signalled, "mirror")
		var he hintErr
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case err != nil && tc.name != "list" && (!errors.As(err, &he) || he.hint == ""):
			t.Errorf("%s: %v has no hint", tc.name, err)
		}
	}
}
