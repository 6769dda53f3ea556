package browsetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// TestLinkToUnguessedType follows, in a real browser from disk, the links
// of a page written before their targets were fetched, to URLs served with
// another type than their names made the spider guess: /notes (text/plain,
// guessed a page) and /data.txt (HTML, guessed text). Each must end on the
// target's content, the first through the page at the guessed name that
// forwards to the copy (a meta refresh, no script).
func TestLinkToUnguessedType(t *testing.T) {
	exe := chromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<a id="notes" href="/notes">notes</a> <a id="data" href="/data.txt">data</a>`))
		case "/notes":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("plain notes"))
		case "/data.txt":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<p>data is a page</p>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	tmp := t.TempDir()
	l, err := list.Open(filepath.Join(tmp, "spider.list"), list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "mirror")
	m, err := mirror.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	e := crawl.New(crawl.Config{Spider: "slow", Profile: claim.Profile{Window: time.Hour, MaxLevel: -1, Batch: 100},
		Starts: []string{srv.URL + "/"}, Concurrency: 1, Lease: time.Minute, UntilIdle: true},
		l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-background-networking", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	// The browser's top-level navigations, in order: the forwarding page
	// navigates on by itself once loaded.
	navigated := make(chan string, 16)
	chromedp.ListenTarget(ctx, func(ev any) {
		if nav, ok := ev.(*cdppage.EventFrameNavigated); ok && nav.Frame.ParentID == "" {
			select {
			case navigated <- nav.Frame.URL:
			default:
			}
		}
	})
	home := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, strings.TrimPrefix(srv.URL, "http://"), "index.html"))}).String()
	for _, tt := range []struct{ id, want string }{{"notes", "plain notes"}, {"data", "data is a page"}} {
		var href string
		if err := chromedp.Run(ctx, chromedp.Navigate(home), chromedp.Evaluate(`document.getElementById("`+tt.id+`").href`, &href)); err != nil {
			t.Fatalf("open %s: %v", home, err)
		}
		for len(navigated) > 0 {
			<-navigated
		}
		if err := chromedp.Run(ctx, chromedp.Navigate(href)); err != nil {
			t.Errorf("follow %s: %v", href, err)
			continue
		}
		t.Logf("link %s: %s", tt.id, href)
		if shown := text(ctx, navigated, tt.want); !strings.Contains(shown, tt.want) {
			t.Errorf("link %s to %s shows %q, want %q", tt.id, href, shown, tt.want)
		}
	}
}

// text returns the text of the page shown once it holds want, or once no
// further navigation comes (navigated) before ctx ends, at most three
// navigations on.
func text(ctx context.Context, navigated <-chan string, want string) string {
	var shown string
	for range 3 {
		err := chromedp.Run(ctx, chromedp.WaitReady("body"), chromedp.Evaluate(`document.body.innerText`, &shown))
		if err == nil && strings.Contains(shown, want) {
			return shown
		}
		select {
		case <-navigated:
		case <-ctx.Done():
			return shown
		}
	}
	return shown
}
