package sitetest

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestShape(t *testing.T) {
	s := New(Options{})
	checkShape(t, s, 47, map[int]int{0: 1, 1: 9, 2: 8, 3: 13, 4: 13, 5: 3}, []pathLevel{
		{"/", 0},
		{"/about", 1},
		{"/forum/", 1},
		{"/static/site.css", 1},
		{"/static/logo.png", 1},
		{topicPath(t, s, 30), 1},
		{topicPath(t, s, 26), 1},
		{"/forum/?page=2", 2},
		{topicPath(t, s, 25), 2},
		{topicPath(t, s, 30) + "/replies", 2},
		{"/forum/?page=3", 3},
		{topicPath(t, s, 11), 3},
		{topicPath(t, s, 10), 4},
		{"/topic/7-%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82", 4},
		{topicPath(t, s, 3) + "/replies", 5},
	})
}

// TestCrawlAgreesWithPaths checks, by crawling the HTML the way a spider
// would, that Paths and Levels describe exactly the pages reachable by links,
// before and after every kind of mutation, and that no link is broken.
func TestCrawlAgreesWithPaths(t *testing.T) {
	s := New(Options{})
	crawlAgrees(t, s, []step{
		{"initial", func() {}},
		{"add", func() { s.AddTopic("Brand new") }},
		{"edit", func() { s.EditTopic(topicPath(t, s, 4)) }},
		{"announce", func() { s.Announce(topicPath(t, s, 5)) }},
		{"delete", func() { s.Delete(topicPath(t, s, 21)) }},
		{"delete latest", func() { s.Delete(topicPath(t, s, 31)) }},
		{"delete deep", func() { s.Delete(topicPath(t, s, 3)) }},
	})
}

func TestDepthLimit(t *testing.T) {
	s := New(Options{})
	deep := topicPath(t, s, 3) + "/replies"
	for _, tc := range []struct {
		depth int
		want  bool
	}{{1, false}, {2, false}, {4, false}, {5, true}, {-1, true}} {
		_, found := crawl(t, s.Handler(), tc.depth)[deep]
		if found != tc.want {
			t.Errorf("crawl to depth %d reaches %s = %v, want %v", tc.depth, deep, found, tc.want)
		}
	}
	// A fast spider limited to 2 levels still sees every announcement.
	shallow := crawl(t, s.Handler(), 2)
	for _, p := range latest(t, s) {
		if _, ok := shallow[p]; !ok {
			t.Errorf("announced %s not reached within 2 levels", p)
		}
	}
}

func TestHomeLinksLatest(t *testing.T) {
	s := New(Options{})
	var want []string
	for id := 30; id > 25; id-- {
		want = append(want, topicPath(t, s, id))
	}
	if got := latest(t, s); !slices.Equal(got, want) {
		t.Errorf("latest = %v, want %v", got, want)
	}
	for _, p := range []string{"/forum/", "/about"} {
		if _, ok := crawl(t, s.Handler(), 1)[p]; !ok {
			t.Errorf("home does not link %s", p)
		}
	}
}

func TestAddTopic(t *testing.T) {
	s := New(Options{})
	p := s.AddTopic("  Fresh news, today!  ")
	if p != "/topic/31-fresh-news-today" {
		t.Fatalf("AddTopic path = %q", p)
	}
	got := latest(t, s)
	if len(got) != LatestLen || got[0] != p {
		t.Errorf("latest = %v, want %s first of %d", got, p, LatestLen)
	}
	if slices.Contains(got, topicPath(t, s, 26)) {
		t.Errorf("topic 26 should have scrolled out of latest: %v", got)
	}
	if b, _ := s.Body("/forum/"); !bytes.Contains(b, []byte(`href="`+p+`"`)) {
		t.Errorf("forum page 1 does not link %s", p)
	}
	w := get(t, s.Handler(), "GET", p)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "<h1>Fresh news, today!</h1>") {
		t.Errorf("GET %s = %d %q", p, w.Code, w.Body.String())
	}
	if lv := s.Levels()[p]; lv != 1 {
		t.Errorf("level of new topic = %d, want 1", lv)
	}
	// Adding a topic pushes the oldest onto a new index page, a level deeper.
	if lv := s.Levels()[topicPath(t, s, 1)]; lv != 5 {
		t.Errorf("level of topic 1 after add = %d, want 5", lv)
	}
}

func TestAnnounce(t *testing.T) {
	s := New(Options{})
	p := topicPath(t, s, 3)
	s.Announce(p)
	if got := latest(t, s); got[0] != p {
		t.Errorf("latest = %v, want %s first", got, p)
	}
	if b, _ := s.Body(p); !bytes.Contains(b, []byte("revision 2")) {
		t.Errorf("announced topic not edited")
	}
	if lv := s.Levels()[p+"/replies"]; lv != 2 {
		t.Errorf("replies of announced topic at level %d, want 2", lv)
	}
}

func TestEditTopicIsSilent(t *testing.T) {
	s := New(Options{})
	p := topicPath(t, s, 4)
	before := bodies(s)
	s.EditTopic(p)
	after := bodies(s)
	for path, b := range after {
		changed := !bytes.Equal(b, before[path])
		if changed != (path == p) {
			t.Errorf("%s changed = %v after EditTopic(%s)", path, changed, p)
		}
	}
	if !bytes.Contains(after[p], []byte("revision 2")) {
		t.Errorf("edited topic does not show revision 2")
	}
	s.EditTopic("/nowhere") // ignored
	s.EditTopic(p[:len(p)-1])
	if !reflect.DeepEqual(bodies(s), after) {
		t.Errorf("EditTopic of unknown path changed the site")
	}
}

func bodies(s *Site) map[string][]byte {
	m := map[string][]byte{}
	for _, p := range s.Paths() {
		m[p], _ = s.Body(p)
	}
	return m
}

func TestConditionalGet(t *testing.T) {
	clk := newClock()
	s := New(Options{Now: clk.Now})
	h := s.Handler()
	p := topicPath(t, s, 12)
	first := get(t, h, "GET", p)
	etag, lm := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
	if first.Code != 200 || etag == "" || lm == "" {
		t.Fatalf("GET %s = %d, ETag %q, Last-Modified %q", p, first.Code, etag, lm)
	}
	older := clk.Now().Add(-time.Hour).Format(http.TimeFormat)

	check := func(when string, want map[string]int) {
		t.Helper()
		cases := map[string][]string{
			"etag":       {"If-None-Match", etag},
			"etag list":  {"If-None-Match", `"nope", ` + etag},
			"since":      {"If-Modified-Since", lm},
			"since old":  {"If-Modified-Since", older},
			"etag+since": {"If-None-Match", etag, "If-Modified-Since", older},
		}
		for name, hdr := range cases {
			for _, m := range []string{"GET", "HEAD"} {
				if w := get(t, h, m, p, hdr...); w.Code != want[name] {
					t.Errorf("%s: %s %s = %d, want %d", when, m, name, w.Code, want[name])
				}
			}
		}
	}
	check("unchanged", map[string]int{"etag": 304, "etag list": 304, "since": 304, "since old": 200, "etag+since": 304})

	// Edit in the same second as the page was created: both validators must
	// still see the change.
	s.EditTopic(p)
	check("after edit", map[string]int{"etag": 200, "etag list": 200, "since": 200, "since old": 200, "etag+since": 200})
	w := get(t, h, "GET", p)
	if w.Header().Get("ETag") == etag {
		t.Errorf("ETag unchanged after edit")
	}
	newLM, _ := http.ParseTime(w.Header().Get("Last-Modified"))
	oldLM, _ := http.ParseTime(lm)
	if !newLM.After(oldLM) {
		t.Errorf("Last-Modified %v not after %v", newLM, oldLM)
	}
	// Unchanged pages keep their validators.
	if b := get(t, h, "GET", "/"); b.Header().Get("Last-Modified") != lm {
		t.Errorf("home Last-Modified changed to %s after a silent edit", b.Header().Get("Last-Modified"))
	}
}

func TestDelete(t *testing.T) {
	for _, tc := range []struct {
		gone410 bool
		want    int
	}{{false, 404}, {true, 410}} {
		s := New(Options{Gone410: tc.gone410})
		p, older, newer := topicPath(t, s, 27), topicPath(t, s, 26), topicPath(t, s, 28)
		s.Delete(p)
		for _, q := range []string{p, p + "/replies"} {
			if w := get(t, s.Handler(), "GET", q); w.Code != tc.want {
				t.Errorf("Gone410=%v: GET %s = %d, want %d", tc.gone410, q, w.Code, tc.want)
			}
			if _, ok := s.Body(q); ok {
				t.Errorf("Body(%s) still ok", q)
			}
			if slices.Contains(s.Paths(), q) {
				t.Errorf("Paths still has %s", q)
			}
		}
		for q, b := range bodies(s) {
			if bytes.Contains(b, []byte(p)) {
				t.Errorf("%s still links deleted %s", q, p)
			}
		}
		if b, _ := s.Body(newer); !bytes.Contains(b, []byte(`href="`+older+`" rel="prev"`)) {
			t.Errorf("neighbour %s does not link %s as older", newer, older)
		}
		if got := latest(t, s); len(got) != LatestLen || slices.Contains(got, p) {
			t.Errorf("latest after delete = %v", got)
		}
		s.Delete(p) // again: ignored
		s.EditTopic(p)
		if w := get(t, s.Handler(), "GET", p); w.Code != tc.want {
			t.Errorf("deleted topic revived: %d", w.Code)
		}
	}
}

func TestNotFoundAndRedirects(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	for _, tc := range []struct {
		method, target string
		code           int
		location       string
	}{
		{"GET", "/nope", 404, ""},
		{"GET", "/about?x=1", 404, ""},
		{"GET", "/about/", 404, ""},
		{"GET", "/forum/?page=4", 404, ""},
		{"GET", "/forum/?page=0", 404, ""},
		{"GET", "/forum/?page=02", 404, ""},
		{"GET", "/topic/12-wrong-slug", 404, ""},
		{"GET", topicPath(t, s, 1) + "/replies", 404, ""}, // topic 1 has none
		{"GET", "/static/", 404, ""},
		{"GET", "/forum", 301, "/forum/"},
		{"GET", "/forum/?page=1", 301, "/forum/"},
		{"POST", "/", 405, ""},
		{"GET", "/robots.txt", 200, ""},
		{"HEAD", "/", 200, ""},
	} {
		w := get(t, h, tc.method, tc.target)
		if w.Code != tc.code || w.Header().Get("Location") != tc.location {
			t.Errorf("%s %s = %d Location %q, want %d %q", tc.method, tc.target,
				w.Code, w.Header().Get("Location"), tc.code, tc.location)
		}
	}
}

func TestHeadersAndRequisites(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	for _, p := range s.Paths() {
		w := get(t, h, "GET", p)
		if w.Header().Get("ETag") == "" || w.Header().Get("Last-Modified") == "" {
			t.Errorf("%s: missing ETag or Last-Modified", p)
		}
		if strings.HasPrefix(p, "/static/") {
			continue
		}
		if ct := w.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", p, ct)
		}
		b := w.Body.String()
		if !strings.Contains(b, `href="/static/site.css"`) || !strings.Contains(b, `src="/static/logo.png"`) {
			t.Errorf("%s does not reference the requisites", p)
		}
	}
	css := get(t, h, "GET", "/static/site.css")
	if ct := css.Header().Get("Content-Type"); ct != "text/css; charset=utf-8" {
		t.Errorf("css Content-Type %q", ct)
	}
	logo := get(t, h, "GET", "/static/logo.png")
	if ct := logo.Header().Get("Content-Type"); ct != "image/png" {
		t.Errorf("logo Content-Type %q", ct)
	}
	if img, err := png.Decode(logo.Body); err != nil || img.Bounds().Dx() != 16 {
		t.Errorf("logo does not decode as a 16px PNG: %v", err)
	}
	robots := get(t, h, "GET", "/robots.txt")
	if b := robots.Body.String(); !strings.Contains(b, "User-agent: *") || strings.Contains(b, "Disallow: /") {
		t.Errorf("robots.txt does not allow all: %q", b)
	}
}

func TestCyrillicTopic(t *testing.T) {
	s := New(Options{})
	const enc = "/topic/7-%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82"
	if !slices.Contains(s.Paths(), enc) {
		t.Fatalf("Paths lacks %s", enc)
	}
	b, _ := s.Body("/forum/?page=3")
	if !bytes.Contains(b, []byte(`<a href="`+enc+`">Привет!</a>`)) {
		t.Errorf("forum page 3 does not link the Cyrillic topic percent-encoded")
	}
	for _, target := range []string{enc, strings.ToLower(enc)} {
		w := get(t, s.Handler(), "GET", target)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "<title>Привет! — ") {
			t.Errorf("GET %s = %d", target, w.Code)
		}
	}
	if a, ok := s.Body("/topic/7-привет"); !ok || !bytes.Equal(a, mustBody(t, s, enc)) {
		t.Errorf("Body of decoded spelling differs")
	}
}

func mustBody(t *testing.T, s *Site, p string) []byte {
	t.Helper()
	b, ok := s.Body(p)
	if !ok {
		t.Fatalf("Body(%s) not ok", p)
	}
	return b
}

func TestRequestsLogged(t *testing.T) {
	clk := newClock()
	s := New(Options{Now: clk.Now})
	h := s.Handler()
	get(t, h, "GET", "/forum/?page=2", "User-Agent", "spider-test/1")
	clk.Advance(time.Second)
	get(t, h, "HEAD", "/nope")
	get(t, h, "GET", "/topic/7-привет")
	want := []Request{
		{clk.Now().Add(-time.Second), "GET", "/forum/?page=2", 200, "spider-test/1", 0},
		{clk.Now(), "HEAD", "/nope", 404, "", 0},
		{clk.Now(), "GET", "/topic/7-%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82", 200, "", 0},
	}
	got := s.Requests()
	for i := range got {
		if got[i].Took <= 0 {
			t.Errorf("request %d took %v", i, got[i].Took)
		}
		got[i].Took = 0 // real time, not the site's clock
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Requests =\n%v\nwant\n%v", got, want)
	}
}

func TestRequestsBounded(t *testing.T) {
	defer func(n int) { maxRequests = n }(maxRequests)
	maxRequests = 3
	s := New(Options{})
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		get(t, s.Handler(), "GET", p)
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, r.Path)
	}
	if want := []string{"/c", "/d", "/e"}; !slices.Equal(got, want) {
		t.Errorf("Requests = %v, want %v", got, want)
	}
}

func TestLatency(t *testing.T) {
	s := New(Options{Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	r := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	start := time.Now()
	s.Handler().ServeHTTP(httptest.NewRecorder(), r)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled request took %v", d)
	}
	if got := s.Requests(); len(got) != 1 || got[0].Status != 503 {
		t.Errorf("Requests = %v, want one with Status 503", got)
	}

	s = New(Options{Latency: 30 * time.Millisecond})
	start = time.Now()
	if w := get(t, s.Handler(), "GET", "/"); w.Code != 200 {
		t.Errorf("GET / = %d", w.Code)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("request took %v, want at least the latency", d)
	}
}

func TestDeterministic(t *testing.T) {
	a := New(Options{Topics: 25})
	b := New(Options{Topics: 25, Now: newClock().Now})
	mutate(t, a)
	mutate(t, b)
	if !reflect.DeepEqual(bodies(a), bodies(b)) {
		t.Errorf("same mutations gave different sites")
	}
	if !slices.Contains(a.Paths(), "/topic/27-%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82-%D0%BC%D0%B8%D1%80") {
		t.Errorf("Cyrillic AddTopic path missing: %v", a.Paths())
	}
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct{ topics, paths, deepest int }{
		{1, 6, 1},      // home, about, forum, topic 1 (latest), 2 requisites
		{3, 9, 2},      // + topics 2, 3 and 3/replies, one below its topic
		{10, 18, 3},    // one index page; topics 5..1 only through it
		{11, 20, 3},    // a second index page (level 2) holds topic 1
		{100, 147, 12}, // 10 index pages; page 10 at level 10
	} {
		s := New(Options{Topics: tc.topics})
		deepest := 0
		for _, l := range s.Levels() {
			deepest = max(deepest, l)
		}
		if n := len(s.Paths()); n != tc.paths || deepest != tc.deepest {
			t.Errorf("Topics %d: %d paths, deepest level %d; want %d, %d", tc.topics, n, deepest, tc.paths, tc.deepest)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				p := s.AddTopic("t")
				if j%2 == 0 {
					s.EditTopic(p)
				} else {
					s.Delete(p)
				}
				_ = s.Paths()
				_ = s.Requests()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", []string{"/", "/forum/", p}[(i+j)%3], nil))
			}
		}()
	}
	wg.Wait()
	if n := len(s.Requests()); n != 80 {
		t.Errorf("logged %d requests, want 80", n)
	}
}
