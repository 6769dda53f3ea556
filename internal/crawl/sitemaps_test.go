package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func urlset(entries ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + strings.Join(entries, "") + `</urlset>`
}

func smURL(loc, lastmod string) string {
	if lastmod == "" {
		return "<url><loc>" + loc + "</loc></url>"
	}
	return "<url><loc>" + loc + "</loc><lastmod>" + lastmod + "</lastmod></url>"
}

// sitemapSite sets up a site whose robots.txt names an index of two
// gzipped url sets (one named .gz, one not), a sitemap on another host
// and an index nested in the index. The url sets list a page linked from
// nowhere, a linked page, a page of another host and an excluded page.
func sitemapSite(t *testing.T, v *env, oldMod string) {
	b := v.base
	v.site.set("/robots.txt", 200, "User-agent: *\nDisallow:\nSitemap: "+b+"/sitemap_index.xml\nSitemap: http://other.example/sitemap.xml\n")
	v.site.set("/", 200, `<a href="/linked">linked</a>`)
	v.site.set("/linked", 200, "linked v1")
	v.site.set("/orphan", 200, "orphan")
	v.site.set("/orphan2", 200, "orphan2")
	v.site.set("/excluded/page", 200, "excluded")
	v.site.set("/sitemap_index.xml", 200, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<sitemap><loc>`+b+`/sm1.xml.gz</loc><lastmod>2026-11-01</lastmod></sitemap>`+
		`<sitemap><loc>`+b+`/sm2.xml</loc></sitemap>`+
		`<sitemap><loc>http://other.example/sm3.xml</loc></sitemap>`+
		`<sitemap><loc>`+b+`/nested.xml</loc></sitemap></sitemapindex>`)
	v.site.set("/sm1.xml.gz", 200, gzipped(t, urlset(smURL(b+"/orphan", oldMod), smURL(b+"/linked", oldMod),
		smURL("http://other.example/x", ""), smURL(b+"/excluded/page", ""))))
	v.site.set("/sm2.xml", 200, gzipped(t, urlset(smURL(b+"/orphan2", "2999-01-01T00:00:00Z"))))
	v.site.set("/nested.xml", 200, `<sitemapindex><sitemap><loc>`+b+`/deep.xml</loc></sitemap></sitemapindex>`)
	v.site.set("/deep.xml", 200, urlset(smURL(b+"/deep-page", "")))
	v.cfg = func(c *Config) {
		c.Sitemaps = true
		c.Scope.Exclude = []string{"/excluded/"}
	}
}

// A page linked from nowhere but listed in a sitemap is mirrored at level
// 1; the sitemaps themselves are not mirrored, nor listed; what is out of
// scope, on another host or nested too deep is not taken.
func TestSitemapListsPages(t *testing.T) {
	v := newEnv(t)
	sitemapSite(t, v, "2020-01-01")
	v.crawl(t, time.Hour)
	for _, p := range []string{"/orphan", "/orphan2"} {
		en := v.line(t, v.base+p)
		if en.Level != 1 || en.State != list.Downloaded || v.file(t, en.File) != p[1:] {
			t.Errorf("%s: %+v, want mirrored at level 1", p, en)
		}
	}
	urls := map[string]bool{}
	v.list.Scan(t.Context(), func(e *list.Entry) error { urls[e.URL] = true; return nil })
	for _, u := range []string{"/sitemap_index.xml", "/sm1.xml.gz", "/sm2.xml", "/nested.xml", "/deep-page", "/excluded/page"} {
		if urls[v.base+u] {
			t.Errorf("%s is in the list", u)
		}
	}
	if urls["http://other.example/x"] || len(urls) != 4 {
		t.Errorf("list holds %d lines %v, want /, /linked, /orphan, /orphan2", len(urls), urls)
	}
	for path, want := range map[string]int{"/sitemap_index.xml": 1, "/sm1.xml.gz": 1, "/sm2.xml": 1, "/nested.xml": 1, "/deep.xml": 0, "/sitemap.xml": 0} {
		if n := v.hits(path); n != want {
			t.Errorf("%s requested %d times, want %d", path, n, want)
		}
	}
	sts, err := list.ReadStatuses(v.list.Path())
	var st Status
	if err != nil || len(sts) != 1 || json.Unmarshal(sts[0].Extra, &st) != nil || len(st.Sitemaps) != 1 {
		t.Fatalf("published status %+v (%v): want one host's sitemaps", st, err)
	}
	if h := st.Sitemaps[0]; h.Reads != 1 || h.Files != 4 || h.URLs != 5 || h.Taken != 3 || h.Hinted != 3 {
		t.Errorf("sitemaps in the status: %+v, want 1 read, 4 files, 5 URLs, 3 taken, 3 with a lastmod", h)
	}
}

// A lastmod is never proof: a changed page whose sitemap lastmod is old is
// fetched again when its window says so, and a sitemap read within the
// window is not requested again.
func TestSitemapOldLastmodKeepsNoPageStale(t *testing.T) {
	v := newEnv(t)
	sitemapSite(t, v, "2020-01-01")
	v.crawl(t, time.Hour)
	v.site.set("/linked", 200, "linked v2")
	v.clock = v.clock.Add(30 * time.Minute)
	v.crawl(t, 10*time.Minute)
	if n := v.hits("/sitemap_index.xml"); n != 1 {
		t.Errorf("sitemap index requested %d times within an hour, want once", n)
	}
	if en := v.line(t, v.base+"/linked"); v.file(t, en.File) != "linked v2" {
		t.Errorf("/linked after it changed: %q, want the new version", v.file(t, en.File))
	}
}

// A lastmod newer than a line's copy marks the line hinted (due at once);
// an older one does not; one in the future counts as now.
func TestSitemapLastmodHints(t *testing.T) {
	v := newEnv(t)
	sitemapSite(t, v, "2020-01-01")
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour)
	newer := v.clock.Add(-time.Hour).Format(time.RFC3339)
	b := v.base
	v.site.set("/sm1.xml.gz", 200, gzipped(t, urlset(smURL(b+"/orphan", newer), smURL(b+"/linked", "2020-01-01"))))
	cfg := v.cfg
	v.cfg = func(c *Config) {
		cfg(c)
		c.Profile.MaxLevel = 0 // the start page alone is claimed: the lines stay as the sitemap left them
	}
	v.crawl(t, time.Hour)
	if en := v.line(t, b+"/orphan"); !en.Hinted() {
		t.Errorf("/orphan with a lastmod newer than its copy: %+v, want hinted", en)
	}
	if en := v.line(t, b+"/orphan2"); !en.Hinted() {
		t.Errorf("/orphan2 with a lastmod in the future: %+v, want hinted", en)
	}
	if en := v.line(t, b+"/linked"); en.Hinted() {
		t.Errorf("/linked with a lastmod older than its copy: %+v, want not hinted", en)
	}
	if n := v.hits("/sm1.xml.gz"); n != 2 {
		t.Errorf("url set requested %d times in two runs two hours apart, want 2", n)
	}
}

// Sitemaps off: nothing but pages is requested.
func TestSitemapsOff(t *testing.T) {
	v := newEnv(t)
	sitemapSite(t, v, "2020-01-01")
	v.cfg = nil
	v.crawl(t, time.Hour)
	if n := v.hits("/sitemap_index.xml") + v.hits("/sitemap.xml"); n != 0 {
		t.Errorf("sitemaps requested %d times with sitemaps off", n)
	}
}

func TestSitemapDue(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		rec   meta.Record
		now   time.Time
		every time.Duration
		want  bool
	}{
		{"never read", meta.Record{}, t0, time.Hour, true},
		{"read within the window", meta.Record{LastAttempt: t0}, t0.Add(59 * time.Minute), time.Hour, false},
		{"read a window ago", meta.Record{LastAttempt: t0}, t0.Add(time.Hour), time.Hour, true},
		{"a slow spider's read does not hold a fast one back", meta.Record{LastAttempt: t0}, t0.Add(2 * time.Hour), time.Hour, true},
		{"a fast spider's read holds a slow one back", meta.Record{LastAttempt: t0}, t0.Add(2 * time.Hour), 24 * time.Hour, false},
		{"after a transient failure, its retry time", meta.Record{LastAttempt: t0, RetryAt: t0.Add(15 * time.Minute)}, t0.Add(15 * time.Minute), 24 * time.Hour, true},
		{"before it", meta.Record{LastAttempt: t0, RetryAt: t0.Add(15 * time.Minute)}, t0.Add(14 * time.Minute), 24 * time.Hour, false},
		{"a window shorter than the retry wait", meta.Record{LastAttempt: t0, RetryAt: t0.Add(15 * time.Minute)}, t0.Add(10 * time.Minute), 10 * time.Minute, true},
	}
	for _, tt := range tests {
		if got := sitemapDue(tt.rec, tt.now, tt.every); got != tt.want {
			t.Errorf("%s: due %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A sitemap is read again conditionally, with the validators of its last
// read, and a 304 keeps what the list has; without a Sitemap line in
// robots.txt, /sitemap.xml is read.
func TestSitemapConditional(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, "home")
	v.site.set("/sitemap.xml", 200, urlset(smURL(v.base+"/listed", "2026-11-20")))
	v.site.set("/listed", 200, "listed")
	v.site.etag["/sitemap.xml"] = `"v1"`
	v.cfg = func(c *Config) { c.Sitemaps = true }
	v.crawl(t, time.Hour)
	if en := v.line(t, v.base+"/listed"); en.Level != 1 || en.State != list.Downloaded {
		t.Errorf("/listed: %+v, want mirrored at level 1", en)
	}
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	if n, nm := v.hits("/sitemap.xml"), v.site.notMod["/sitemap.xml"]; n != 2 || nm != 1 {
		t.Errorf("/sitemap.xml requested %d times, %d answered 304; want 2, the second conditional", n, nm)
	}
}

// Two spiders of a list that read a host's sitemaps together (started by
// one timer) request each sitemap once: the second finds the first's read
// under way and lets it be, as it would a read a moment old. The handler
// holds the first request until the second spider has had its look.
func TestSitemapReadOncePerList(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		hits++
		first := hits == 1
		mu.Unlock()
		if first {
			close(arrived)
			<-release
		}
		w.Write([]byte(urlset(smURL("http://"+r.Host+"/listed", ""))))
	}))
	defer srv.Close()
	l, m, _ := openListMirror(t)
	engine := func(name string) *Engine {
		cfg := Config{Spider: name, Profile: claim.Profile{Name: name, Window: time.Hour, MaxLevel: -1, Batch: 10},
			Starts: []string{srv.URL + "/"}, Concurrency: 1, Lease: time.Minute, Sitemaps: true, IgnoreRobots: true}
		return New(cfg, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
	}
	fast, slow := engine("fast"), engine("slow")
	ctx := context.Background()
	done := make(chan sitemapRead)
	// The first spider's read: it ends once release is closed, and the
	// test waits for it below.
	go func() { done <- fast.readSitemaps(ctx, srv.URL) }()
	<-arrived
	second := slow.readSitemaps(ctx, srv.URL)
	close(release)
	first := <-done
	mu.Lock()
	defer mu.Unlock()
	if hits != 1 {
		t.Errorf("/sitemap.xml requested %d times by two spiders reading together, want 1", hits)
	}
	if len(first.adds) != 1 || len(second.adds) != 0 {
		t.Errorf("the first read took %d URLs, the second %d; want 1 and 0", len(first.adds), len(second.adds))
	}
}
