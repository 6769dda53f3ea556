package crawl

import (
	"bytes"
	"context"
	"io/fs"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// TestMirrorIsBrowsable crawls the test site and then follows every link of
// every saved page and every url() of every style sheet the way a browser
// does from file://: each relative link must lead to a file in the mirror, and no link may lead to the site's
// own host by an absolute URL (that would leave the mirror).
func TestMirrorIsBrowsable(t *testing.T) {
	site := sitetest.New(sitetest.Options{Topics: 25})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	dir := t.TempDir()
	l, _ := list.Open(filepath.Join(dir, "spider.list"), list.Options{Reserve: mirror.ReserveLen})
	mdir := filepath.Join(dir, "mirror")
	m, err := mirror.Open(mdir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	e := New(Config{Spider: "slow", Profile: claim.Profile{Window: time.Hour, MaxLevel: -1, Batch: 20},
		Starts: []string{srv.URL + "/"}, Concurrency: 4, Lease: time.Minute, UntilIdle: true},
		l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	pages, links, sheets := 0, 0, 0
	filepath.WalkDir(mdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") && !strings.HasSuffix(p, ".css") {
			return err
		}
		b, _ := os.ReadFile(p)
		refs := hrefs(b)
		if strings.HasSuffix(p, ".css") {
			sheets++
			refs = nil
			for _, u := range htmlurl.CSSURLs(b) {
				refs = append(refs, htmlurl.CSSUnescape(b[u.Start:u.End]))
			}
		} else {
			pages++
		}
		for _, href := range refs {
			links++
			u, err := url.Parse(href)
			if err != nil {
				t.Errorf("%s: bad link %q", p, href)
				continue
			}
			if u.Scheme != "" {
				if strings.Contains(href, srv.Listener.Addr().String()) {
					t.Errorf("%s: absolute link into the mirrored site %q", p, href)
				}
				continue
			}
			if u.Path == "" { // "#top" and the like
				continue
			}
			target := filepath.Join(filepath.Dir(p), filepath.FromSlash(path.Clean(u.Path)))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q leads to a missing file %s", p, href, target)
			}
		}
		return nil
	})
	if pages < 30 || links < 100 || sheets != 1 {
		t.Errorf("only %d pages, %d style sheets and %d links checked", pages, sheets, links)
	}
}

// hrefs returns the href and src values of a page.
func hrefs(b []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			for _, more := z.TagName(); more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "href" || string(k) == "src" {
					out = append(out, string(v))
				}
			}
		}
	}
}
