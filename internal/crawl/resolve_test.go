package crawl

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/linkname"
)

// typedSite serves each path with a body and a media type a test can
// change, and a robots.txt that forbids /secret/.
type typedSite struct {
	mu    sync.Mutex
	pages map[string][2]string // path (with query) → media type, body
}

func (s *typedSite) set(p, typ, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[p] = [2]string{typ, body}
}

func (s *typedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	pg, ok := s.pages[r.URL.RequestURI()]
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		pg, ok = [2]string{"text/plain", "User-agent: *\nDisallow: /secret/\n"}, true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", pg[0])
	w.Write([]byte(pg[1]))
}

// resolveSite is issue 20's cases of links that did not resolve: a name
// guessed from the extension and never corrected by the served type,
// URLs that shared one file, a file and a directory of one name, and links
// to URLs the spider will not mirror (robots.txt, another host, site
// machinery).
func resolveSite() *typedSite {
	s := &typedSite{pages: map[string][2]string{}}
	const html = "text/html; charset=utf-8"
	s.set("/", html, `<html><head><link rel="stylesheet" href="/style"></head><body>
<a href="/a">a</a> <a href="/a.html">a.html</a> <a href="/dir/">dir</a>
<a href="/dir/index.html">dir index</a> <a href="/x">x</a> <a href="/x/y.html">x/y</a>
<a href="/bin/report">report</a> <a href="/nul.txt">nul</a> <a href="/dl?f=1">dl</a>
<img src="/img/logo"> <a href="/secret/page">secret</a>
<a href="http://other.example/out">out</a>
<a href="/w/index.php?title=A&amp;action=edit">edit</a></body></html>`)
	s.set("/a", html, `<p>page a</p><a href="/x/y.html">y</a>`)
	s.set("/a.html", html, `<p>page a.html</p><a href="/a">a</a>`)
	s.set("/dir/", html, `<p>dir</p><a href="index.html">self</a><a href="../bin/report">r</a>`)
	s.set("/dir/index.html", html, `<p>dir index.html</p><a href="./">up</a>`)
	s.set("/x", "text/plain", "plain x")
	s.set("/x/y.html", html, `<p>x/y</p><a href="../x">x</a><a href="/nul.txt">nul</a>`)
	s.set("/bin/report", "application/pdf", "%PDF-1.4 report")
	s.set("/nul.txt", html, `<p>nul is a page</p><a href="/a.html">a.html</a>`)
	s.set("/dl?f=1", "application/zip", "PK zip")
	s.set("/img/logo", "image/png", "\x89PNG logo")
	s.set("/style", "text/css", "body { background: url(/img/logo) }")
	s.set("/secret/page", html, "<p>secret</p>")
	return s
}

// TestEveryLinkResolves mirrors resolveSite, then refreshes it after
// /bin/report and /nul.txt changed type: each time, every relative link
// of every page in the mirror leads to a file, each URL has a file of its
// own, and links to URLs the spider does not mirror are absolute.
func TestEveryLinkResolves(t *testing.T) {
	site := resolveSite()
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	l, m, mdir := openListMirror(t)
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	crawl := func() {
		t.Helper()
		now := clock
		e := New(Config{
			Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
			Starts: []string{srv.URL + "/"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true,
			Now: func() time.Time { return now },
		}, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
		if _, err := e.Run(context.Background()); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	ownFiles := func(want map[string]string) {
		t.Helper()
		files := map[string]string{}
		for p, marker := range want {
			en := (&env{list: l}).line(t, srv.URL+p)
			if en.File == "" {
				t.Errorf("%s has no copy: %+v", p, en)
				continue
			}
			if o, ok := files[en.File]; ok {
				t.Errorf("%s and %s share the file %s", o, p, en.File)
			}
			files[en.File] = p
			if b, err := os.ReadFile(filepath.Join(mdir, filepath.FromSlash(en.File))); err != nil || !strings.Contains(string(b), marker) {
				t.Errorf("%s: file %s holds %q, %v; want %q in it", p, en.File, b, err, marker)
			}
		}
	}

	crawl()
	ownFiles(map[string]string{"/a": "page a<", "/a.html": "page a.html", "/dir/": "<p>dir<",
		"/dir/index.html": "dir index.html", "/x": "plain x", "/x/y.html": "x/y", "/bin/report": "%PDF",
		"/nul.txt": "nul is a page", "/dl?f=1": "PK zip", "/img/logo": "PNG logo"})
	checkLinksResolve(t, mdir)
	root := readMirror(t, mdir, host+"/index.html")
	for _, abs := range []string{srv.URL + "/secret/page", "http://other.example/out", srv.URL + "/w/index.php?title=A&amp;action=edit"} {
		if !strings.Contains(root, `href="`+abs+`"`) {
			t.Errorf("the link to %s is not absolute:\n%s", abs, root)
		}
	}

	// The types change: the pages linking to them are written again, and
	// those that are not still lead somewhere.
	site.set("/bin/report", "text/html", "<p>report is a page now</p>")
	site.set("/nul.txt", "text/plain", "nul is text now")
	site.set("/a", "text/html; charset=utf-8", `<p>page a, edited</p><a href="/bin/report">r</a><a href="/nul.txt">n</a>`)
	clock = clock.Add(2 * time.Hour)
	crawl()
	ownFiles(map[string]string{"/a": "page a, edited", "/bin/report": "report is a page now", "/nul.txt": "nul is text now"})
	checkLinksResolve(t, mdir)
}

// checkLinksResolve checks that every relative href and src of every page
// (a file a browser takes for HTML) in the mirror names an existing file.
func checkLinksResolve(t *testing.T, mdir string) {
	t.Helper()
	attr := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	pages := 0
	err := filepath.WalkDir(mdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !linkname.IsPageName(d.Name()) {
			return err
		}
		rel, _ := filepath.Rel(mdir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages++
		for _, m := range attr.FindAllStringSubmatch(string(b), -1) {
			ref := m[1]
			if strings.Contains(ref, "://") || strings.HasPrefix(ref, "mailto:") || strings.HasPrefix(ref, "#") {
				continue
			}
			name, err := url.PathUnescape(ref)
			if err != nil {
				t.Errorf("%s: link %q: %v", rel, ref, err)
				continue
			}
			to := path.Join(path.Dir(filepath.ToSlash(rel)), name)
			if st, err := os.Stat(filepath.Join(mdir, filepath.FromSlash(to))); err != nil || st.IsDir() {
				t.Errorf("%s: link %q leads to %s, which is not a file (%v)", rel, ref, to, err)
			}
		}
		return nil
	})
	if err != nil || pages < 5 {
		t.Fatalf("walked %d pages of the mirror: %v", pages, err)
	}
}

func readMirror(t *testing.T, mdir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mdir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
