package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// serve starts a 45-topic test site of the given shape for the test.
func serve(t *testing.T, shape sitetest.Shape) (*sitetest.Site, *httptest.Server) {
	site := sitetest.New(sitetest.Options{Topics: 45, Shape: shape})
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	return site, srv
}

// TestCrawlFetchesEveryPageOnce: a crawl of the test site, of either shape,
// fetches each reachable path once, images included, and nothing else.
func TestCrawlFetchesEveryPageOnce(t *testing.T) {
	for _, tc := range []struct {
		shape  sitetest.Shape
		images int // paths ending in .png
	}{{sitetest.Forum, 1}, {sitetest.Articles, 46}} {
		site, srv := serve(t, tc.shape)

		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"-c", "4", srv.URL + "/"}, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.shape, code, errOut.String())
		}
		want := map[string]bool{}
		images := 0
		for _, p := range site.Paths() {
			want[p] = true
			if strings.HasSuffix(p, ".png") {
				images++
			}
		}
		if images != tc.images {
			t.Errorf("%v: the site has %d images, want %d", tc.shape, images, tc.images)
		}
		got := map[string]int{}
		for _, r := range site.Requests() {
			got[r.Path]++
			if r.Status != 200 {
				t.Errorf("%v: %s answered %d", tc.shape, r.Path, r.Status)
			}
		}
		for p := range want {
			if got[p] != 1 {
				t.Errorf("%v: %s fetched %d times, want once", tc.shape, p, got[p])
			}
		}
		for p := range got {
			if !want[p] {
				t.Errorf("%v: %s fetched, not a page of the site", tc.shape, p)
			}
		}
		if !strings.HasPrefix(out.String(), "fetched "+itoa(len(want))+" pages, ") || !strings.Contains(out.String(), " 0 errors") {
			t.Errorf("%v: output %q, want %d pages", tc.shape, out.String(), len(want))
		}
	}
}

// TestCrawlSearchesHTMLOnly: links are looked for in HTML pages alone, not
// in the bytes of an image or a stylesheet that happen to spell them.
func TestCrawlSearchesHTMLOnly(t *testing.T) {
	var mu sync.Mutex
	fetched := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetched[r.URL.Path] = true
		mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<link rel="stylesheet" href="/s.css"><img src="/a.png">`)
		case "/a.png":
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, "\x89PNG\r\n\x1a\n"+`src="/not-a-link"`)
		case "/s.css":
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, `a[href="/not-a-link-either"] { color: red }`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{srv.URL + "/"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := map[string]bool{"/": true, "/a.png": true, "/s.css": true}
	if !reflect.DeepEqual(fetched, want) {
		t.Errorf("fetched %v, want %v", fetched, want)
	}
}

// TestCrawlStopsAtMax: -max bounds the fetches.
func TestCrawlStopsAtMax(t *testing.T) {
	site, srv := serve(t, sitetest.Forum)
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

func itoa(i int) string { return strconv.Itoa(i) }
