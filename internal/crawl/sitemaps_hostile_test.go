package crawl

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/hostile"
)

// Hostile sitemaps cost no more than one read's budget: the index lists
// far more files than a read may fetch, a gzip bomb is read up to the
// protocol's 50 MB, a file of too many URLs up to its 50,000, deep
// nesting and URLs of other hosts give nothing, an index in an index is
// not read, and every request carries the user agent.
func TestHostileSitemaps(t *testing.T) {
	v := newHostile(t, hostile.Options{Sitemaps: true})
	// Time enough for the site to make 60,000 URLs on a busy machine
	// under the race detector: what is tested is what is read of them.
	v.fetch.Timeout, v.fetch.HeaderTimeout = 30*time.Second, 10*time.Second
	v.cfg = func(c *Config) {
		c.Sitemaps = true
		c.Profile.MaxLevel = 0 // the home page alone is fetched: what the sitemaps added stays in the list
	}
	v.run(t, "/ok-after-bad")
	lines := v.entries(t)
	many := 0
	for u, en := range lines {
		switch p := strings.TrimPrefix(u, v.base); {
		case strings.HasPrefix(p, "/sitemap-page/"):
			many++
			if en.Level != 1 {
				t.Errorf("%s at level %d, want 1", p, en.Level)
			}
		case p == "/bomb-page", p == "/ok-after-bad":
		default:
			t.Errorf("unexpected line %s", u)
		}
	}
	if many != 50_000 {
		t.Errorf("%d URLs taken from a file listing %d, want the protocol's 50,000", many, hostile.SitemapMany)
	}
	if _, ok := lines[v.base+"/bomb-page"]; !ok {
		t.Errorf("the URL before the gzip bomb's padding was not taken")
	}
	var maps int
	for _, r := range v.site.Requests() {
		if strings.HasPrefix(r.Path, "/sitemap") {
			maps++
			if r.UserAgent != v.fetch.UserAgent {
				t.Errorf("%s requested as %q, want the spider's user agent", r.Path, r.UserAgent)
			}
		}
	}
	if maps != sitemapFiles {
		t.Errorf("%d sitemap files requested, want the budget of one read, %d", maps, sitemapFiles)
	}
	if n := v.site.Hits("/sitemap-deeper.xml") + v.site.Hits("/sitemap-index.xml"); n != 1 {
		t.Errorf("the index read %d times with the nested index's sitemap, want the index once and nothing nested", n)
	}
}

// Sitemap requests are paced like pages: robots.txt's Crawl-delay spaces
// them from the first one on, whichever of the reader and the workers
// asked for robots.txt first.
func TestSitemapsPaced(t *testing.T) {
	var site *hostile.Site
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { site.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	site = hostile.New(hostile.Options{Robots: "User-agent: *\nDisallow:\nCrawl-delay: 0.2\nSitemap: " + srv.URL +
		"/sitemap-nested.xml\nSitemap: " + srv.URL + "/sitemap-foreign.xml\n"})
	v := newHostile(t, hostile.Options{})
	v.site, v.base = site, srv.URL
	v.cfg = func(c *Config) { c.Sitemaps = true }
	v.run(t, "/ok-after-bad")
	if e := v.line(t, "/nested-page"); e.Level != 1 || site.Hits("/nested-page") != 1 {
		t.Errorf("/nested-page: %+v, requested %d times; want level 1, requested once", e, site.Hits("/nested-page"))
	}
	reqs := site.Requests()
	if n := site.HitsPrefix("/sitemap-"); n != 3 {
		t.Errorf("%d sitemap requests, want the two robots.txt names and the one the index lists", n)
	}
	gaps(t, reqs, 200*time.Millisecond)
}
