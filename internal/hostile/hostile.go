// Package hostile serves a web site that misbehaves in every way a crawler
// must survive, for spider's tests: each misbehaviour at a path of its own,
// all linked from the home page, every request logged with its arrival
// time.
//
// The cases, by path:
//
//	/robots.txt         Disallow: /private/ and Crawl-delay (Options)
//	/private/secret     a page robots.txt forbids
//	/calendar/D         a day of an endless calendar: links to the next and previous days
//	/spiral/a/b/        links to "a/b/", so /spiral/a/b/a/b/... without end
//	/long/N             links to /long/ with an ever longer name (doubling)
//	/loop/a, /loop/b    redirect to each other
//	/redirect-private   redirects to http://169.254.169.254/latest/meta-data/ (the cloud metadata service)
//	/chain/N            redirects to /chain/N+1 up to /chain/30, which is a page (30 hops)
//	/gzip-bomb          Content-Encoding: gzip, Options.BombSize bytes decoded from a few KiB
//	/big                Options.BigSize bytes (default 100 MB), chunked, no Content-Length
//	/big-declared       the same with its Content-Length announced
//	/trickle            headers at once, then one byte of body every 100 ms, forever
//	/slow-headers       the status line, then one header byte every 100 ms, forever
//	/503-then-200       503 with Retry-After: 1 to the first Options.FailFirst requests (counted while not healthy), then 200
//	/429                always 429 with Retry-After: 2
//	/503                always 503, no Retry-After
//	/404-then-200       404 to the first Options.FailFirst requests (counted while not healthy), then 200
//	/410                always 410 Gone
//	/cp1251             windows-1251 page (charset in the header); Cyrillic text and link
//	/koi8r              koi8-r page (charset in <meta> only)
//	/sjis               Shift_JIS page (charset in the header)
//	/bad-utf8           declared UTF-8, holds invalid bytes
//	/ru/..., /ja/..., /ok-after-bad   plain pages the encoded pages link to
//	/etag               a page with an ETag and Last-Modified that answers conditional GETs
//	                    with 304 until Site.Change("/etag") gives it a new version
//	/private-links      links to 10.0.0.1, 192.168.1.1, 169.254.169.254, [::1], localhost, ftp:, file:
//	/sitemap-...        hostile sitemaps, linked from nowhere (sitemaps.go)
//
// Every other path is 404. With SetHealthy(true) every case path but
// /etag serves a plain, well-formed page instead ("good copy of PATH"), so
// a test can mirror the good version first and then check that the
// misbehaving one does no damage to it. Counters such as FailFirst's
// count only the requests made while not healthy.
//
// A Site is safe for concurrent use.
package hostile

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/statusrec"
)

// Options shape the site. Zero fields take the defaults.
type Options struct {
	CrawlDelay time.Duration // robots.txt Crawl-delay; 0 = no Crawl-delay line
	Robots     string        // robots.txt body; "" = the default (Disallow: /private/, Crawl-delay)
	BombSize   int64         // decoded size of /gzip-bomb; default 256 MiB
	BigSize    int64         // size of /big; default 100 MB
	FailFirst  int           // failures before /503-then-200 and /404-then-200 answer 200; default 1
	Sitemaps   bool          // robots.txt ends with a Sitemap line naming /sitemap-index.xml (sitemaps.go)
}

// Request is one logged request.
type Request struct {
	Time      time.Time // when it arrived
	Path      string    // request URI as received
	Status    int       // status sent (0 if the handler was cut off before sending one)
	UserAgent string
	Header    http.Header // request headers (If-None-Match and the like)
}

// Site is the hostile site.
type Site struct {
	opt Options

	mu      sync.Mutex
	log     []Request
	hits    map[string]int
	bad     map[string]int // requests per path while misbehaving
	healthy bool

	bombOnce sync.Once
	bomb     []byte

	version map[string]int // Change count per path (/etag)
}

// New returns a site.
func New(o Options) *Site {
	if o.BombSize <= 0 {
		o.BombSize = 256 << 20
	}
	if o.BigSize <= 0 {
		o.BigSize = 100 << 20
	}
	if o.FailFirst <= 0 {
		o.FailFirst = 1
	}
	s := &Site{opt: o, hits: map[string]int{}, bad: map[string]int{}, version: map[string]int{}}
	s.gzipBomb() // made now, so that serving it takes no time
	return s
}

// SetHealthy switches every case to a plain good page (true) or back to
// its misbehaviour (false).
func (s *Site) SetHealthy(h bool) {
	s.mu.Lock()
	s.healthy = h
	s.mu.Unlock()
}

// Change gives the page at path (/etag) a new version: a new body, ETag
// and Last-Modified.
func (s *Site) Change(path string) {
	s.mu.Lock()
	s.version[path]++
	s.mu.Unlock()
}

// Requests returns the request log, oldest first.
func (s *Site) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Hits returns how many requests arrived for path (without query).
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// HitsPrefix returns how many requests arrived for paths starting with prefix.
func (s *Site) HitsPrefix(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.hits {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// ServeHTTP implements http.Handler.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	healthy := s.healthy
	if !healthy {
		s.bad[r.URL.Path]++
	}
	n := s.bad[r.URL.Path]
	i := len(s.log)
	s.log = append(s.log, Request{Time: time.Now(), Path: r.URL.RequestURI(), UserAgent: r.UserAgent(), Header: r.Header.Clone()})
	s.mu.Unlock()
	sw := statusrec.New(w)
	defer func() {
		s.mu.Lock()
		s.log[i].Status = sw.Status()
		s.mu.Unlock()
	}()
	p := r.URL.Path
	if healthy && p != "/" && p != "/robots.txt" && isCase(p) {
		page(sw, "good copy of "+p, "")
		return
	}
	s.serve(sw, r, p, n)
}

var cases = []string{"/private/", "/calendar/", "/spiral/", "/long/", "/loop/", "/redirect-private", "/chain/", "/gzip-bomb", "/big",
	"/trickle", "/slow-headers", "/503-then-200", "/429", "/503", "/404-then-200", "/410",
	"/cp1251", "/koi8r", "/sjis", "/bad-utf8", "/private-links"}

func isCase(p string) bool {
	for _, c := range cases {
		if p == c || strings.HasSuffix(c, "/") && strings.HasPrefix(p, c) || strings.HasPrefix(p, c+"-") {
			return true
		}
	}
	return false
}

func page(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1>\n%s\n", html.EscapeString(title), html.EscapeString(title), body)
}

func (s *Site) serve(w *statusrec.Writer, r *http.Request, p string, n int) {
	switch {
	case p == "/":
		var b strings.Builder
		for _, c := range []string{"/private/secret", "/calendar/2026-11-21", "/spiral/a/b/", "/long/x", "/loop/a", "/redirect-private", "/chain/0",
			"/gzip-bomb", "/big", "/big-declared", "/trickle", "/slow-headers", "/503-then-200", "/429", "/503",
			"/404-then-200", "/410", "/cp1251", "/koi8r", "/sjis", "/bad-utf8", "/private-links"} {
			fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", c, c)
		}
		page(w, "hostile site", b.String())
	case p == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		body := s.opt.Robots
		if body == "" {
			body = "User-agent: *\nDisallow: /private/\n"
			if s.opt.CrawlDelay > 0 {
				body += "Crawl-delay: " + strconv.FormatFloat(s.opt.CrawlDelay.Seconds(), 'f', -1, 64) + "\n"
			}
		}
		if s.opt.Sitemaps {
			body += "Sitemap: http://" + r.Host + "/sitemap-index.xml\n"
		}
		io.WriteString(w, body)
	case p == "/private/secret":
		page(w, "secret", "robots.txt forbids this page")
	default:
		if !s.trapCase(w, r, p) && !s.bodyCase(w, r, p) && !s.statusCase(w, r, p, n) && !s.pageCase(w, r, p) && !s.sitemapCase(w, r, p) {
			http.NotFound(w, r)
		}
	}
}

// trapCase serves the endless spaces and the redirects that go nowhere
// good, if p is one of them.
func (s *Site) trapCase(w http.ResponseWriter, r *http.Request, p string) bool {
	switch {
	case strings.HasPrefix(p, "/calendar/"):
		day, err := time.Parse("2006-01-02", strings.TrimPrefix(p, "/calendar/"))
		if err != nil {
			http.NotFound(w, r)
			return true
		}
		page(w, day.Format("Monday 2 January 2006"), fmt.Sprintf(`<a href="%s">previous day</a> <a href="%s">next day</a>`,
			day.AddDate(0, 0, -1).Format("2006-01-02"), day.AddDate(0, 0, 1).Format("2006-01-02")))
	case strings.HasPrefix(p, "/spiral/"):
		page(w, "spiral", `<a href="a/b/">deeper</a>`)
	case strings.HasPrefix(p, "/long/"):
		name := strings.TrimPrefix(p, "/long/")
		page(w, "long", fmt.Sprintf(`<a href="/long/%s%s">longer</a>`, name, name))
	case p == "/redirect-private":
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	case p == "/loop/a":
		http.Redirect(w, r, "/loop/b", http.StatusFound)
	case p == "/loop/b":
		http.Redirect(w, r, "/loop/a", http.StatusFound)
	case strings.HasPrefix(p, "/chain/"):
		k, err := strconv.Atoi(strings.TrimPrefix(p, "/chain/"))
		switch {
		case err != nil || k < 0 || k > 30:
			http.NotFound(w, r)
		case k == 30:
			page(w, "end of the chain", "")
		default:
			http.Redirect(w, r, "/chain/"+strconv.Itoa(k+1), http.StatusMovedPermanently)
		}
	default:
		return false
	}
	return true
}

// statusCase serves the error statuses, if p is one of them (n: its
// requests so far).
func (s *Site) statusCase(w http.ResponseWriter, r *http.Request, p string, n int) bool {
	switch {
	case p == "/503-then-200":
		if n <= s.opt.FailFirst {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		page(w, "back after 503", "")
	case p == "/429":
		w.Header().Set("Retry-After", "2")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case p == "/503":
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	case p == "/404-then-200":
		if n <= s.opt.FailFirst {
			http.NotFound(w, r)
			return true
		}
		page(w, "back after 404", "")
	case p == "/410":
		http.Error(w, "gone", http.StatusGone)
	default:
		return false
	}
	return true
}

// pageCase serves the encoded pages, the pages they link to, /etag and
// /private-links, if p is one of them.
func (s *Site) pageCase(w http.ResponseWriter, r *http.Request, p string) bool {
	switch {
	case p == "/cp1251", p == "/koi8r", p == "/sjis", p == "/bad-utf8":
		ct, body := Encoded(p)
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	case strings.HasPrefix(p, "/ru/"), strings.HasPrefix(p, "/ja/"), p == "/ok-after-bad":
		page(w, "link target "+p, "")
	case p == "/etag":
		s.mu.Lock()
		v := s.version[p] + 1
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", fmt.Sprintf(`"v%d"`, v))
		mod := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(v) * time.Hour)
		body := fmt.Sprintf("<!doctype html><title>etag</title><p>version %d</p>\n", v)
		http.ServeContent(w, r, "", mod, strings.NewReader(body))
	case p == "/private-links":
		page(w, "private links", `<a href="http://10.0.0.1/admin">a</a> <a href="http://192.168.1.1/">b</a>
<img src="http://169.254.169.254/latest/meta-data/"> <img src="http://10.0.0.1/x.png"> <a href="http://[::1]:9/">c</a> <a href="http://localhost:9/">d</a>
<a href="ftp://127.0.0.1/x">e</a> <a href="file:///etc/passwd">f</a> <a href="javascript:alert(1)">g</a>`)
	default:
		return false
	}
	return true
}
