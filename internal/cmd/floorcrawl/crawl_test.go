package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// serve starts a 45-topic test forum for the test.
func serve(t *testing.T) (*sitetest.Site, *httptest.Server) {
	site := sitetest.New(sitetest.Options{Topics: 45})
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	return site, srv
}

// TestCrawlFetchesEveryPageOnce: a crawl of the test forum fetches each
// reachable path once and nothing else.
func TestCrawlFetchesEveryPageOnce(t *testing.T) {
	site, srv := serve(t)

	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-c", "4", srv.URL + "/"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := map[string]bool{}
	for _, p := range site.Paths() {
		want[p] = true
	}
	got := map[string]int{}
	for _, r := range site.Requests() {
		got[r.Path]++
		if r.Status != 200 {
			t.Errorf("%s answered %d", r.Path, r.Status)
		}
	}
	for p := range want {
		if got[p] != 1 {
			t.Errorf("%s fetched %d times, want once", p, got[p])
		}
	}
	for p := range got {
		if !want[p] {
			t.Errorf("%s fetched, not a page of the site", p)
		}
	}
	if !strings.HasPrefix(out.String(), "fetched ") || !strings.Contains(out.String(), " 0 errors") {
		t.Errorf("output %q", out.String())
	}
}

// TestCrawlStopsAtMax: -max bounds the fetches.
func TestCrawlStopsAtMax(t *testing.T) {
	site, srv := serve(t)
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-c", "3", "-max", "7", srv.URL + "/"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if n := len(site.Requests()); n != 7 {
		t.Errorf("%d requests, want 7", n)
	}
}

func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"http://example.com/"}, 2, "not an http URL of a loopback address"},
		{[]string{"ftp://127.0.0.1/"}, 2, "not an http URL of a loopback address"},
		{[]string{}, 2, "usage:"},
		{[]string{"-c", "0", "http://127.0.0.1/"}, 2, "usage:"},
		{[]string{"http://127.0.0.1:1/"}, 1, "floorcrawl: error:"},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tt.args, &out, &errOut)
		if code != tt.code || !strings.Contains(errOut.String(), tt.says) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tt.args, code, errOut.String(), tt.code, tt.says)
		}
	}
}
