package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
)

// TestFastAndSlowSideBySide runs the real binary as a fast and a slow
// spider on one list against a changing site, with windows compressed to
// seconds, and checks the product's promises one by one.
func TestFastAndSlowSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about half a minute")
	}
	const (
		fastWindow = time.Second
		slowWindow = 5 * time.Second
		slack      = 2 * time.Second // one pass, one fetch, process scheduling
	)
	site, base := newSite(t, sitetest.Options{Topics: 30})
	dir := t.TempDir()
	listPath, mirrorDir := filepath.Join(dir, "spider.list"), filepath.Join(dir, "mirror")
	// Archiving is compressed too: two 404s a second apart.
	conf := filepath.Join(dir, "spider.toml")
	if err := os.WriteFile(conf, []byte("archive_after = 2\narchive_span = \"1s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"--config", conf, "--start", base + "/", "--delay", "0", "--concurrency", "2", "--lease", "30s"}
	fast := startSpider(t, dir, append([]string{"--profile", "fast", "--window", fastWindow.String(), "--max-level", "2", "--batch", "5"}, common...)...)
	slow := startSpider(t, dir, append([]string{"--profile", "slow", "--window", slowWindow.String(), "--batch", "10"}, common...)...)

	urlOf := func(path string) string { return base + path }
	downloaded := func(path string) func() bool {
		return func() bool {
			for _, e := range readList(t, listPath) {
				if e.URL == urlOf(path) && e.State == list.Downloaded {
					return true
				}
			}
			return false
		}
	}

	// 1. The whole site gets mirrored, every page on one line.
	eventually(t, 30*time.Second, "mirroring every page", mirrored(site, base, func() []list.Entry { return readList(t, listPath) }))
	es := readList(t, listPath)
	byURL := checkOnce(t, es)
	for _, p := range site.Paths() {
		if _, ok := byURL[urlOf(p)]; !ok {
			t.Errorf("page %s not in the list", p)
		}
	}
	if len(es) != len(site.Paths()) {
		t.Errorf("list has %d lines, site has %d pages", len(es), len(site.Paths()))
	}
	checkMirror(t, mirrorDir, es)

	// 2. A page announced on the home page is fetched within the fast
	// window. The home page is polled on the fast spider's schedule
	// (the shared copy is never older than its shortest); a start page
	// has no floor of its own profile's (internal/claim), so whichever
	// spider finds it due first polls it and follows what it announces.
	announced := time.Now()
	news := site.AddTopic("breaking news")
	took := eventually(t, fastWindow+slack, "a spider fetching the announced page", downloaded(news))
	first := firstRequest(site, news)
	t.Logf("announced page first fetched by %q", first.UserAgent)
	t.Logf("announced page in the mirror %v after the announcement (fast window %v)", took, fastWindow)
	if d := first.Time.Sub(announced); d > fastWindow+slack {
		t.Errorf("announced page fetched %v after the announcement, want within %v", d, fastWindow+slack)
	}

	// 3. A deep page edited without announcement is refreshed by the slow
	// spider within its window.
	var deep list.Entry
	for _, e := range readList(t, listPath) {
		if e.Level > 2 && strings.Contains(e.URL, "/topic/") && !strings.Contains(e.URL, "replies") {
			deep = e
			break
		}
	}
	if deep.URL == "" {
		t.Fatal("no topic deeper than the fast spider's level limit")
	}
	deepPath := strings.TrimPrefix(deep.URL, base)
	site.EditTopic(deepPath)
	edited := time.Now()
	body, _ := site.Body(deepPath)
	rev := regexp.MustCompile(`Topic #\d+, revision \d+\.`).Find(body)
	if rev == nil {
		t.Fatalf("no revision marker in %s", body)
	}
	took = eventually(t, slowWindow+slack, "the slow spider refreshing the edited deep page", func() bool {
		got, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(deep.File)))
		return err == nil && bytes.Contains(got, rev)
	})
	t.Logf("deep edit in the mirror %v after the edit (slow window %v)", took, slowWindow)
	for _, r := range site.Requests() {
		if r.Path == deepPath && r.Time.After(edited) && !strings.HasSuffix(r.UserAgent, "; slow)") {
			t.Errorf("deep page (level %d) fetched by %q; the fast spider's limit is level 2", deep.Level, r.UserAgent)
		}
	}

	// 4. A deleted page is archived and its copy kept.
	var gone list.Entry
	for _, e := range readList(t, listPath) {
		if strings.Contains(e.URL, "/topic/") && !strings.Contains(e.URL, "replies") && e.URL != deep.URL && e.URL != urlOf(news) {
			gone = e
			break
		}
	}
	goneBody, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(gone.File)))
	if err != nil {
		t.Fatal(err)
	}
	site.Delete(strings.TrimPrefix(gone.URL, base))
	eventually(t, slowWindow+slack, "the deleted page being archived", inState(gone.URL, list.Archived, func() []list.Entry { return readList(t, listPath) }))
	// The copy stays, with a banner saying it is archived (written before
	// the list records the state).
	if got, err := os.ReadFile(filepath.Join(mirrorDir, filepath.FromSlash(gone.File))); err != nil ||
		!rewrite.HasBanner(got) || !bytes.Equal(rewrite.Unbanner(got), goneBody) {
		t.Errorf("copy of the deleted page changed, removed or without its banner: %v", err)
	}

	// A graceful stop hands every claim back and exits 0.
	stopAll(t, mirrorDir, func() []list.Entry { return readList(t, listPath) }, fast, slow)
}

func firstRequest(site *sitetest.Site, path string) sitetest.Request {
	for _, r := range site.Requests() {
		if r.Path == path {
			return r
		}
	}
	return sitetest.Request{}
}
