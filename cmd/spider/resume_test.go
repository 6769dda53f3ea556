package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// writeTrapList writes the list an endless calendar leaves behind: the
// start page at level 0 and n days below it, more than one read buffer of
// the list's scan (256 KiB) in all.
func writeTrapList(t *testing.T, path, origin string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(list.Header + "\n")
	fmt.Fprintf(&b, "- - 0 found - %s/\n", origin)
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&b, "- - 1 found - %s/calendar/%s?view=month&sort=date&page=%d\n", origin, day.AddDate(0, 0, i).Format("2006-01-02"), i)
	}
	if b.Len() < 512<<10 {
		t.Fatalf("list of %d bytes: too small to span two read buffers", b.Len())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The hosts in scope of a resumed run (no --start) come from the list's
// level-0 lines. The scan's entries share its read buffer: a host kept
// without a copy was overwritten by later lines, the loopback site looked
// public, every connection to it was refused, and every line was recorded
// "robots.txt unreachable" without a request.
func TestScopeHostsOutliveTheScan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spider.list")
	writeTrapList(t, path, "http://127.0.0.1:40123", 8000)
	l, err := list.Open(path, list.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := scopeHosts(context.Background(), l, nil, nil)
	if err != nil || len(hosts) != 1 || hosts[0] != "127.0.0.1:40123" {
		t.Fatalf("hosts %q, %v; want [127.0.0.1:40123]", hosts, err)
	}
}

// A run resumed after a trap run (a long list, no --start) asks for
// robots.txt and fetches its claims.
func TestResumedRunFetches(t *testing.T) {
	var robots, pages atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robots.Add(1)
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		pages.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>a day")
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeTrapList(t, filepath.Join(dir, "spider.list"), srv.URL, 8000)
	code, out := spiderRun(t, dir, time.Minute, "--profile", "slow", "--delay", "0", "--cycles", "2")
	if code != 0 || robots.Load() != 1 || pages.Load() == 0 || strings.Contains(out, "robots.txt unreachable") {
		t.Fatalf("exit %d, robots.txt requested %d times, %d pages; output:\n%s", code, robots.Load(), pages.Load(), clipOut(out))
	}
}

// clipOut keeps a test's failure message short.
func clipOut(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n…\n" + s[len(s)-2000:]
	}
	return s
}
