package sitetest

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// get sends one request to h; hdr holds header name/value pairs.
func get(t *testing.T, h http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// linkRE finds links the way a simple crawler would: href and src
// attributes, and url() in stylesheets.
var linkRE = regexp.MustCompile(`(?:href|src)="([^"]*)"|url\("([^"]*)"\)`)

const testHost = "site.test"

// links returns the on-site links of a body fetched from target, resolved
// and without fragments, spelled as request URIs.
func links(t *testing.T, target string, body string) []string {
	t.Helper()
	base := &url.URL{Scheme: "http", Host: testHost}
	base, err := base.Parse(target)
	if err != nil {
		t.Fatalf("parse %q: %v", target, err)
	}
	var out []string
	for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
		ref, err := url.Parse(html.UnescapeString(m[1] + m[2]))
		if err != nil {
			t.Errorf("%s: bad link %q: %v", target, m[0], err)
			continue
		}
		u := base.ResolveReference(ref)
		if u.Scheme != "http" || u.Host != testHost {
			continue
		}
		out = append(out, u.RequestURI())
	}
	return out
}

// crawl walks the handler breadth-first from "/" to maxDepth links (-1 for
// no limit) and returns the level of every page fetched. Every link must
// answer 200.
func crawl(t *testing.T, h http.Handler, maxDepth int) map[string]int {
	t.Helper()
	level := map[string]int{"/": 0}
	queue := []string{"/"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		w := get(t, h, "GET", p)
		if w.Code != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200 (broken link)", p, w.Code)
			continue
		}
		ct := w.Header().Get("Content-Type")
		if !strings.HasPrefix(ct, "text/html") && !strings.HasPrefix(ct, "text/css") {
			continue
		}
		if maxDepth >= 0 && level[p] >= maxDepth {
			continue
		}
		for _, l := range links(t, p, w.Body.String()) {
			if _, seen := level[l]; !seen {
				level[l] = level[p] + 1
				queue = append(queue, l)
			}
		}
	}
	return level
}

// step is one change to a site, named.
type step struct {
	name string
	do   func()
}

// crawlAgrees applies each step to s in turn and checks after each that a
// crawl from "/" finds exactly Paths, at the levels Levels gives.
func crawlAgrees(t *testing.T, s *Site, steps []step) {
	t.Helper()
	for _, st := range steps {
		st.do()
		got := crawl(t, s.Handler(), -1)
		if !reflect.DeepEqual(keys(got), s.Paths()) {
			t.Errorf("%s: crawl found %v\nPaths = %v", st.name, keys(got), s.Paths())
		}
		if !reflect.DeepEqual(got, s.Levels()) {
			t.Errorf("%s: crawl levels %v\nLevels = %v", st.name, got, s.Levels())
		}
	}
}

func keys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// topicPath returns the path of topic id, from Paths.
func topicPath(t *testing.T, s *Site, id int) string {
	t.Helper()
	return livePath(t, s, "/topic/", id)
}

// articlePath returns the path of article id, from Paths.
func articlePath(t *testing.T, s *Site, id int) string {
	t.Helper()
	return livePath(t, s, "/article/", id)
}

// livePath returns the path of topic (article) id in dir, from Paths.
func livePath(t *testing.T, s *Site, dir string, id int) string {
	t.Helper()
	prefix := dir + itoa(id) + "-"
	for _, p := range s.Paths() {
		if strings.HasPrefix(p, prefix) && !strings.HasSuffix(p, "/replies") {
			return p
		}
	}
	t.Fatalf("no live topic %d in Paths", id)
	return ""
}

// mutate applies one of each mutation to s, a site of 15 topics or more
// of either shape.
func mutate(t *testing.T, s *Site) {
	t.Helper()
	dir := s.opt.Shape.topicDir()
	s.AddTopic("One")
	s.EditTopic(livePath(t, s, dir, 2))
	s.Delete(livePath(t, s, dir, 15))
	s.Announce(livePath(t, s, dir, 9))
	s.AddTopic("Привет, мир")
}

type pathLevel struct {
	path  string
	level int
}

// checkShape checks that s has n paths, perLevel of them at each level,
// and each of want at its level.
func checkShape(t *testing.T, s *Site, n int, perLevel map[int]int, want []pathLevel) {
	t.Helper()
	lv := s.Levels()
	if got := len(s.Paths()); got != n {
		t.Errorf("len(Paths) = %d, want %d", got, n)
	}
	count := map[int]int{}
	for _, l := range lv {
		count[l]++
	}
	if !reflect.DeepEqual(count, perLevel) {
		t.Errorf("pages per level = %v, want %v", count, perLevel)
	}
	for _, tc := range want {
		if got, ok := lv[tc.path]; !ok || got != tc.level {
			t.Errorf("level of %s = %d (present %v), want %d", tc.path, got, ok, tc.level)
		}
	}
}

var latestRE = regexp.MustCompile(`(?s)<section id="latest">.*?</section>`)

// latest returns the hrefs of the home page's latest list, in order.
func latest(t *testing.T, s *Site) []string {
	t.Helper()
	w := get(t, s.Handler(), "GET", "/")
	sec := latestRE.FindString(w.Body.String())
	if sec == "" {
		t.Fatal("home page has no latest section")
	}
	return links(t, "/", sec)
}
