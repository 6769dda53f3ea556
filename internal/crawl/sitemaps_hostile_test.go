package crawl

import (
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/hostile"
)

// Hostile sitemaps cost no more than one read's budget: the index lists
// far more files than a read may fetch, a gzip bomb is read up to the
// protocol's 50 MB, a file of too many URLs up to its 50,000, deep
// nesting and URLs of other hosts give nothing, an index in an index is
// not read, and every request carries the user agent.
func TestHostileSitemaps(t *testing.T) {
	v := newHostile(t, hostile.Options{Sitemaps: true})
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
