package browsetest

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// maxPages bounds the pages the browser visits at the second level.
const maxPages = 100

// chromium returns the browser to run, or fails the test with a hint.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("SPIDER_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium found in PATH; hint: install it with `apt-get install -y chromium` (scripts/test does), or set SPIDER_CHROMIUM to a Chrome or Chromium binary")
	return ""
}

// buildMirror crawls the test site into a new mirror, deletes a topic from
// the site, and crawls again three hours later (the spider's clock), so the
// topic is archived. It returns the mirror directory and the topic's path.
func buildMirror(t *testing.T) (dir, gone string) {
	site := sitetest.New(sitetest.Options{Topics: 25})
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	tmp := t.TempDir()
	l, err := list.Open(filepath.Join(tmp, "spider.list"), list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(tmp, "mirror")
	m, err := mirror.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	crawlAt := func(shift time.Duration) {
		e := crawl.New(crawl.Config{Spider: "slow", Profile: claim.Profile{Window: time.Hour, MaxLevel: -1, Batch: 100},
			Starts: []string{srv.URL + "/"}, Concurrency: 4, Lease: time.Minute, UntilIdle: true,
			ArchiveAfter: 1, // one 404 archives: one crawl after the deletion
			Now:          func() time.Time { return time.Now().Add(shift) }},
			l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
		sum, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("crawl: fetched %d, archived %d, errors %d", sum.Fetched, sum.Archived, sum.Errors)
	}
	crawlAt(-3 * time.Hour)
	for _, p := range site.Paths() {
		if strings.HasPrefix(p, "/topic/12-") && !strings.Contains(p, "replies") {
			gone = p
		}
	}
	if gone == "" {
		t.Fatal("no topic 12 on the test site")
	}
	site.Delete(gone)
	crawlAt(0)
	return dir, gone
}

// page is what the browser sees on one page.
type page struct {
	Title       string   `json:"title"`
	URL         string   `json:"url"`
	Links       []string `json:"links"`
	Images      int      `json:"images"`
	Broken      []string `json:"broken"`
	Sheets      int      `json:"sheets"`
	HeaderBg    string   `json:"headerBg"`
	BannerH     float64  `json:"bannerH"`
	BannerText  string   `json:"bannerText"`
	BannerInTop bool     `json:"bannerInTop"`
}

const inspect = `(() => {
  const imgs = Array.from(document.images);
  const hdr = document.querySelector('header');
  const b = document.getElementById('spider-archived');
  const r = b ? b.getBoundingClientRect() : null;
  return {
    title: document.title,
    url: location.href,
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    sheets: document.styleSheets.length,
    headerBg: hdr ? getComputedStyle(hdr).backgroundColor : '',
    bannerH: r ? r.height : -1,
    bannerText: b ? b.innerText : '',
    bannerInTop: r ? r.top >= 0 && r.bottom <= window.innerHeight : false,
  };
})()`

// requests records every network request of the page and every failed one.
type requests struct {
	mu     sync.Mutex
	urls   map[string]string // request id → URL
	all    []string
	failed []string
}

func (r *requests) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		r.urls[string(ev.RequestID)] = ev.Request.URL
		r.all = append(r.all, ev.Request.URL)
	case *network.EventLoadingFailed:
		r.failed = append(r.failed, r.urls[string(ev.RequestID)]+": "+ev.ErrorText)
	}
}

func TestBrowseMirror(t *testing.T) {
	exe := chromium(t)
	dir, gone := buildMirror(t)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(1000, 800))
	// No UserDataDir of the test's: chromedp makes its own and removes it
	// once the browser has exited, while Chromium's helper processes may
	// still write to one that t.TempDir would fail to remove.
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	reqs := &requests{urls: map[string]string{}}
	chromedp.ListenTarget(ctx, reqs.listen)
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}

	visit := func(u string) (page, bool) {
		t.Helper()
		var p page
		if err := chromedp.Run(ctx, chromedp.Navigate(u), chromedp.Evaluate(inspect, &p)); err != nil {
			t.Errorf("open %s: %v", u, err)
			return p, false
		}
		if len(p.Broken) > 0 {
			t.Errorf("%s: images not loaded: %q", u, p.Broken)
		}
		return p, true
	}
	fileLinks := func(p page) []string {
		var out []string
		for _, l := range p.Links {
			if u, _, _ := strings.Cut(l, "#"); strings.HasPrefix(u, "file://") && !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
		return out
	}

	// Level 0: the mirror root.
	root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "index.html"))}).String()
	home, ok := visit(root)
	if !ok {
		t.FailNow()
	}
	level1 := fileLinks(home)
	if len(level1) < 4 { // the three root pages and one host
		t.Fatalf("root index.html links only %q", level1)
	}
	// Level 1: the host's home page and the root pages; level 2: every page
	// they link to, up to maxPages.
	var level2 []string
	var archiveLink, siteHome string
	archived := map[string]bool{} // pages archive.html links to
	for _, u := range level1 {
		p, ok := visit(u)
		if !ok {
			continue
		}
		if p.HeaderBg != "" {
			siteHome = u
		}
		for _, l := range fileLinks(p) {
			if !slices.Contains(level1, l) && !slices.Contains(level2, l) && l != root {
				level2 = append(level2, l)
			}
			if strings.HasSuffix(u, "/archive.html") {
				archived[l] = true
				// The page's file: its name, "{}" and ".html" (mirror.Path).
				if strings.HasSuffix(l, gone[strings.LastIndexByte(gone, '/'):]+"%7B%7D.html") {
					archiveLink = l
				}
			}
		}
	}
	if siteHome == "" {
		t.Fatalf("no page of the mirrored site among %q", level1)
	}
	visited, styled, images := 0, 0, 0
	var mirrored string
	for _, u := range level2 {
		if visited == maxPages {
			break
		}
		p, ok := visit(u)
		if !ok {
			continue
		}
		visited++
		images += p.Images
		// The site's style sheet paints the header #eef.
		if p.HeaderBg == "rgb(238, 238, 255)" && p.Sheets > 0 {
			styled++
		} else if p.HeaderBg != "" {
			t.Errorf("%s: style sheet not applied (header background %q, %d sheets)", u, p.HeaderBg, p.Sheets)
		}
		// The title's em dash reads right only if the file's encoding does.
		if p.HeaderBg != "" && !strings.HasSuffix(p.Title, " — Spider Test Forum") {
			t.Errorf("%s: title %q", u, p.Title)
		}
		if strings.Contains(u, "/topic/7-") && !strings.Contains(u, "replies") {
			mirrored = u // the topic with a Cyrillic name
		}
		if banner := p.BannerH >= 0; banner != archived[u] {
			t.Errorf("%s: archive banner %v, listed on archive.html %v", u, banner, archived[u])
		}
	}
	if visited < 10 || styled < 10 || images < 10 {
		t.Errorf("visited %d pages at level 2, %d styled, %d images: too few to tell", visited, styled, images)
	}

	// The archived page, reached from archive.html, shows the banner.
	if archiveLink == "" {
		t.Fatalf("archive.html does not link %s", gone)
	}
	arch, ok := visit(archiveLink)
	if !ok {
		t.FailNow()
	}
	if arch.BannerH < 10 || !arch.BannerInTop || !strings.Contains(arch.BannerText, "removed from the site") {
		t.Errorf("archived page %s: banner height %v, in view %v, text %q", archiveLink, arch.BannerH, arch.BannerInTop, arch.BannerText)
	}

	// Screenshots of a mirrored page and of the archived one.
	if mirrored == "" {
		mirrored = siteHome
	}
	shots := artifacts(t)
	for _, s := range []struct{ name, url string }{{"mirrored-page.png", mirrored}, {"archived-page.png", archiveLink},
		{"mirror-index.png", root}, {"recent-changes.png", strings.TrimSuffix(root, "index.html") + "recent.html"}} {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.Navigate(s.url), chromedp.FullScreenshot(&png, 100)); err != nil {
			t.Errorf("screenshot of %s: %v", s.url, err)
			continue
		}
		p := filepath.Join(shots, s.name)
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot of %s: %s", s.url, p)
	}

	reqs.mu.Lock()
	defer reqs.mu.Unlock()
	for _, u := range reqs.all {
		if !strings.HasPrefix(u, "file://") {
			t.Errorf("request outside file://: %s", u)
		}
	}
	for _, f := range reqs.failed {
		t.Errorf("request failed: %s", f)
	}
	var css, png int
	for _, u := range reqs.all {
		if strings.HasSuffix(u, ".css") {
			css++
		}
		if strings.HasSuffix(u, ".png") {
			png++
		}
	}
	t.Logf("%d requests (%d style sheets, %d images), %d pages at level 2", len(reqs.all), css, png, visited)
	if css == 0 || png == 0 {
		t.Errorf("no style sheet or image requested: the request log is not working")
	}
}

// artifacts returns the directory for screenshots, created if needed.
func artifacts(t *testing.T) string {
	dir := os.Getenv("SPIDER_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "artifacts")
	}
	dir, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
