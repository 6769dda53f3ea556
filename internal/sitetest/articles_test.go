package sitetest

import (
	"bytes"
	"crypto/sha256"
	"image/png"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestArticlesShape(t *testing.T) {
	s := New(Options{Shape: Articles})
	checkShape(t, s, 70, map[int]int{0: 1, 1: 13, 2: 31, 3: 25}, []pathLevel{
		{"/", 0},
		{"/about", 1},
		{"/static/site.css", 1},
		{"/static/logo.png", 1},
		{"/section/news/", 1},
		{"/section/culture/", 1},
		{"/archive/", 1},
		{articlePath(t, s, 30), 1}, // latest
		{articlePath(t, s, 26), 1},
		{"/media/30.png", 2},
		{"/archive/?page=2", 2},
		{articlePath(t, s, 25), 2}, // through its section
		{articlePath(t, s, 1), 2},
		{"/article/7-%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82", 2},
		{"/media/1.png", 3},
	})
}

func TestArticlesSizes(t *testing.T) {
	for _, tc := range []struct{ articles, paths, images, deepest int }{
		{1, 11, 1, 2},       // home, about, 2 requisites, 4 sections, archive, article, image
		{30, 70, 30, 3},     // one page a section, two archive pages
		{200, 434, 200, 10}, // 5 pages a section, archive page 10 at level 10
		{1000, 2154, 1000, 50},
	} {
		s := New(Options{Shape: Articles, Topics: tc.articles})
		deepest, images := 0, 0
		for p, l := range s.Levels() {
			deepest = max(deepest, l)
			if strings.HasPrefix(p, "/media/") {
				images++
			}
		}
		if n := len(s.Paths()); n != tc.paths || images != tc.images || deepest != tc.deepest {
			t.Errorf("%d articles: %d paths, %d images, deepest level %d; want %d, %d, %d",
				tc.articles, n, images, deepest, tc.paths, tc.images, tc.deepest)
		}
	}
}

// TestArticlesCrawlAgreesWithPaths checks, by crawling the HTML, that Paths
// and Levels describe exactly the pages reachable by links, before and
// after every kind of mutation, and that no link is broken.
func TestArticlesCrawlAgreesWithPaths(t *testing.T) {
	s := New(Options{Shape: Articles, Topics: 60})
	crawlAgrees(t, s, []step{
		{"initial", func() {}},
		{"add", func() { s.AddTopic("Brand new") }},
		{"edit", func() { s.EditTopic(articlePath(t, s, 4)) }},
		{"announce", func() { s.Announce(articlePath(t, s, 5)) }},
		{"delete", func() { s.Delete(articlePath(t, s, 21)) }},
		{"delete latest", func() { s.Delete(articlePath(t, s, 61)) }},
		{"delete oldest", func() { s.Delete(articlePath(t, s, 1)) }},
	})
}

// pagesLinked returns the pages of the index at dir that the page at
// target links to, by number, not counting its links to itself ("#top").
func pagesLinked(t *testing.T, s *Site, target, dir string) []int {
	t.Helper()
	var out []int
	for _, l := range links(t, target, string(mustBody(t, s, target))) {
		switch {
		case l == target && target != dir:
		case l == dir:
			out = append(out, 1)
		case strings.HasPrefix(l, dir+"?page="):
			n, err := strconv.Atoi(strings.TrimPrefix(l, dir+"?page="))
			if err != nil {
				t.Fatalf("%s links %s", target, l)
			}
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestArticlesPagers(t *testing.T) {
	s := New(Options{Shape: Articles, Topics: 400}) // 10 pages a section, 20 archive pages
	for _, tc := range []struct {
		target, dir string
		want        []int
	}{
		// Every page links page 1 of each index in its header.
		{"/section/news/", "/section/news/", []int{1, 2, 3, 10}},
		{"/section/news/?page=2", "/section/news/", []int{1, 3, 4, 10}},
		{"/section/news/?page=5", "/section/news/", []int{1, 3, 4, 6, 7, 10}},
		{"/section/news/?page=10", "/section/news/", []int{1, 8, 9}},
		{"/section/news/?page=5", "/section/science/", []int{1}},
		{"/archive/", "/archive/", []int{1, 2}},
		{"/archive/?page=2", "/archive/", []int{1, 3}},
		{"/archive/?page=7", "/archive/", []int{1, 6, 8}},
		{"/archive/?page=20", "/archive/", []int{1, 19}},
		{"/archive/?page=7", "/section/news/", []int{1}},
	} {
		if got := pagesLinked(t, s, tc.target, tc.dir); !slices.Equal(got, tc.want) {
			t.Errorf("%s links pages %v of %s, want %v", tc.target, got, tc.dir, tc.want)
		}
	}
	// The archive is a chain: page p is p links from page 1.
	lv := s.Levels()
	for p := 2; p <= 20; p++ {
		if got := lv[archivePath(p)]; got != p {
			t.Errorf("level of archive page %d = %d, want %d", p, got, p)
		}
	}
}

var proseRE = regexp.MustCompile(`(?s)</figure>\n(.*)</article>`)

// TestArticlesBodies: every article has 2–6 KB of prose (a paragraph may
// run over) and one image of its own, a PNG of a few KB served as
// image/png with the size its page gives.
func TestArticlesBodies(t *testing.T) {
	s := New(Options{Shape: Articles, Topics: 60})
	h := s.Handler()
	seen := map[[32]byte]string{}
	for id := 1; id <= 60; id++ {
		page := string(mustBody(t, s, articlePath(t, s, id)))
		m := proseRE.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("article %d: no prose after the figure", id)
		}
		prose := strings.NewReplacer("<p>", "", "</p>\n", "").Replace(m[1])
		if n := len(prose); n < 2048 || n > 6144+600 {
			t.Errorf("article %d: %d bytes of prose, want 2–6 KB", id, n)
		}
		img := "/media/" + itoa(id) + ".png"
		tag := `<img src="../media/` + itoa(id) + `.png" alt="Figure ` + itoa(id) + `" width="`
		if strings.Count(page, "<img ") != 2 || !strings.Contains(page, tag) {
			t.Errorf("article %d does not show its image (and the logo) alone", id)
		}
		w := get(t, h, "GET", img)
		if w.Code != 200 || w.Header().Get("Content-Type") != "image/png" {
			t.Fatalf("GET %s = %d %q", img, w.Code, w.Header().Get("Content-Type"))
		}
		body := w.Body.Bytes()
		if len(body) < 1024 || len(body) > 8192 {
			t.Errorf("%s: %d bytes, want a few KB", img, len(body))
		}
		sum := sha256.Sum256(body)
		if other, dup := seen[sum]; dup {
			t.Errorf("%s has the bytes of %s", img, other)
		}
		seen[sum] = img
		decoded, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", img, err)
		}
		b := decoded.Bounds()
		if size := `width="` + itoa(b.Dx()) + `" height="` + itoa(b.Dy()) + `"`; !strings.Contains(page, tag+itoa(b.Dx())) || !strings.Contains(page, size) {
			t.Errorf("article %d does not give its image's size %dx%d", id, b.Dx(), b.Dy())
		}
	}
}

func TestArticlesDeterministic(t *testing.T) {
	a := New(Options{Shape: Articles, Topics: 45})
	b := New(Options{Shape: Articles, Topics: 45, Now: newClock().Now})
	mutate(t, a)
	mutate(t, b)
	if !reflect.DeepEqual(bodies(a), bodies(b)) {
		t.Errorf("same mutations gave different sites")
	}
	if reflect.DeepEqual(bodies(a), bodies(New(Options{Shape: Articles, Topics: 45}))) {
		t.Errorf("mutations changed nothing")
	}
}

func TestArticlesMutations(t *testing.T) {
	for _, gone410 := range []bool{false, true} {
		s := New(Options{Shape: Articles, Gone410: gone410})
		want := map[bool]int{false: 404, true: 410}[gone410]
		edited := articlePath(t, s, 4)
		before := bodies(s)
		s.EditTopic(edited)
		for p, b := range bodies(s) {
			if changed := !bytes.Equal(b, before[p]); changed != (p == edited) {
				t.Errorf("%s changed = %v after editing %s", p, changed, edited)
			}
		}
		if !bytes.Contains(mustBody(t, s, edited), []byte("revision 2")) {
			t.Errorf("edited article does not show revision 2")
		}

		p := articlePath(t, s, 27)
		s.Delete(p)
		for _, q := range []string{p, "/media/27.png"} {
			if w := get(t, s.Handler(), "GET", q); w.Code != want {
				t.Errorf("Gone410=%v: GET %s = %d, want %d", gone410, q, w.Code, want)
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

		added := s.AddTopic("Fresh news")
		if added != "/article/31-fresh-news" || s.Levels()[added] != 1 || s.Levels()["/media/31.png"] != 2 {
			t.Errorf("AddTopic = %s at level %d, its image at %d; want /article/31-fresh-news at 1, 2",
				added, s.Levels()[added], s.Levels()["/media/31.png"])
		}
		if got := latest(t, s); len(got) != LatestLen || got[0] != added {
			t.Errorf("latest = %v, want %s first", got, added)
		}
	}
}

func TestArticlesNotFound(t *testing.T) {
	s := New(Options{Shape: Articles})
	for _, target := range []string{"/forum", "/forum/", "/topic/3-x", "/media/31.png", "/media/", "/archive/?page=3", "/archive/?page=1", "/section/sport/"} {
		if w := get(t, s.Handler(), "GET", target); w.Code != 404 {
			t.Errorf("GET %s = %d, want 404", target, w.Code)
		}
	}
}

func TestShapeFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Shape
		ok   bool
	}{{"forum", Forum, true}, {"articles", Articles, true}, {"Articles", Forum, false}, {"blog", Forum, false}, {"", Forum, false}} {
		var s Shape
		err := s.Set(tc.name)
		if (err == nil) != tc.ok || s != tc.want {
			t.Errorf("Set(%q) = %v, shape %v; want ok %v, %v", tc.name, err, s, tc.ok, tc.want)
		}
		if tc.ok && s.String() != tc.name {
			t.Errorf("String() = %q, want %q", s.String(), tc.name)
		}
	}
	if got := Shape(7).String(); got != "Shape(7)" {
		t.Errorf("Shape(7).String() = %q", got)
	}
}
