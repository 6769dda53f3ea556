package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/trap"
	"github.com/spider-mirror/spider/list"
)

// trapSite serves a handler and logs the request URIs it answered.
type trapSite struct {
	mu   sync.Mutex
	reqs []string
	h    http.HandlerFunc
}

func (s *trapSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.URL.RequestURI())
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	s.h(w, r)
}

func (s *trapSite) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// trapRun is a --until-idle crawl of a trapSite from start under the
// defaults (Delay 0, no level limit), bounded in time.
type trapRun struct {
	site    *trapSite
	base    string
	lines   map[string]list.Entry
	mdir    string
	status  Status
	summary Summary
}

func runTrapSite(t *testing.T, h http.HandlerFunc, start string, adjust func(*Config)) *trapRun {
	t.Helper()
	site := &trapSite{h: h}
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	l, m, mdir := openListMirror(t)
	cfg := Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 50},
		Starts: []string{srv.URL + start}, Concurrency: 4, Lease: time.Minute, UntilIdle: true,
	}
	if adjust != nil {
		adjust(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := New(cfg, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20})).Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the crawl did not end by itself within 60s: %d requests", len(site.requests()))
	}
	r := &trapRun{site: site, base: srv.URL, lines: map[string]list.Entry{}, mdir: mdir, summary: sum}
	if err := l.Scan(context.Background(), func(e *list.Entry) error { c := e.Clone(); r.lines[c.URL] = c; return nil }); err != nil {
		t.Fatal(err)
	}
	sts, err := list.ReadStatuses(l.Path())
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses: %v, %d", err, len(sts))
	}
	if err := json.Unmarshal(sts[0].Extra, &r.status); err != nil {
		t.Fatal(err)
	}
	return r
}

// count returns the lines whose path starts with prefix.
func (r *trapRun) count(prefix string) int {
	n := 0
	for u := range r.lines {
		if strings.HasPrefix(u, r.base+prefix) {
			n++
		}
	}
	return n
}

// calendar serves an endless calendar: each day links the previous and
// the next, and its page says which day it is.
func calendar(w http.ResponseWriter, r *http.Request) {
	day, err := time.Parse("2006-01-02", strings.TrimPrefix(r.URL.Path, "/calendar/"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	fmt.Fprintf(w, `<!doctype html><title>%s</title><h1>%s</h1><p>No events.</p><a href="/">home</a>
<a href="%s">previous day</a> <a href="%s">next day</a>`, day.Format("Monday 2 January 2006"), day.Format("Monday 2 January 2006"),
		day.AddDate(0, 0, -1).Format("2006-01-02"), day.AddDate(0, 0, 1).Format("2006-01-02"))
}

// Under the defaults, an endless calendar stops at a bounded number of
// URLs, and status says why.
func TestTrapCalendarStops(t *testing.T) {
	r := runTrapSite(t, calendar, "/calendar/2026-11-21", nil)
	n := r.count("/calendar/")
	if n > 1000 || n < 20 {
		t.Errorf("calendar: %d lines, want 20 to 1,000", n)
	}
	if len(r.status.CappedPatterns) != 1 || r.status.CappedPatterns[0].Reason != trap.ReasonSimilar ||
		!strings.HasSuffix(r.status.CappedPatterns[0].Pattern, "/calendar/N-N-N") {
		t.Errorf("capped patterns %+v, want the calendar's for near-identical pages", r.status.CappedPatterns)
	}
	if r.status.Filtered[trap.ReasonSimilar] < 1 {
		t.Errorf("filtered %v, want the calendar's cut links counted", r.status.Filtered)
	}
	// The days not taken stay absolute in the copies that link them.
	edges := 0
	for u, e := range r.lines {
		day, err := time.Parse("2006-01-02", strings.TrimPrefix(u, r.base+"/calendar/"))
		if err != nil || e.File == "" {
			continue
		}
		next := r.base + "/calendar/" + day.AddDate(0, 0, 1).Format("2006-01-02")
		if _, ok := r.lines[next]; ok {
			continue
		}
		edges++
		if b, err := os.ReadFile(filepath.Join(r.mdir, filepath.FromSlash(e.File))); err != nil || !strings.Contains(string(b), `href="`+next+`"`) {
			t.Errorf("%s: the link to %s, not taken, is not absolute (%v):\n%s", u, next, err, b)
		}
	}
	if edges == 0 {
		t.Error("no copy links a day not taken")
	}
}

// A calendar whose days all differ (each names its own events) is still
// stopped by the budget of a date-like pattern.
func TestTrapCalendarDistinctDays(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		day, err := time.Parse("2006-01-02", strings.TrimPrefix(r.URL.Path, "/calendar/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<p>%s</p><a href="%s">previous</a> <a href="%s">next</a>`, words(int(day.Unix()/86400)),
			day.AddDate(0, 0, -1).Format("2006-01-02"), day.AddDate(0, 0, 1).Format("2006-01-02"))
	}
	r := runTrapSite(t, h, "/calendar/2026-11-21", nil)
	if n := r.count("/calendar/"); n > DefaultDateURLs+10 || n < DefaultDateURLs/2 {
		t.Errorf("calendar: %d lines, want about %d", n, DefaultDateURLs)
	}
	if len(r.status.CappedPatterns) != 1 || r.status.CappedPatterns[0].Reason != trap.ReasonDated {
		t.Errorf("capped patterns %+v, want the calendar's as a date-like pattern", r.status.CappedPatterns)
	}
}

// words returns a few words that name n, different for every n.
func words(n int) string {
	var b strings.Builder
	for i := range 3 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("w")
		for k := n + i*7919; ; k /= 26 {
			b.WriteByte(byte('a' + k%26))
			if k < 26 {
				break
			}
		}
	}
	return b.String()
}

// A 2,000-level pagination chain of distinct pages is followed to its end
// under the defaults: the defences do not take a long listing for a trap.
func TestTrapChainFollowed(t *testing.T) {
	const levels = 2000
	h := func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("page"))
		if r.URL.Path != "/archive" || err != nil || n < 0 || n >= levels {
			http.NotFound(w, r)
			return
		}
		next := ""
		if n+1 < levels {
			next = fmt.Sprintf(`<a href="/archive?page=%d">older</a>`, n+1)
		}
		fmt.Fprintf(w, `<title>Archive, page %d</title><p>%s</p>%s`, n, words(n), next)
	}
	if testing.Short() {
		t.Skip("2,000 fetches in a row")
	}
	r := runTrapSite(t, h, "/archive?page=0", nil)
	last := r.lines[fmt.Sprintf("%s/archive?page=%d", r.base, levels-1)]
	if n := r.count("/archive"); n != levels || last.State != list.Downloaded {
		t.Errorf("chain: %d lines, the last %v; want %d, the last downloaded", n, last.State, levels)
	}
	if len(r.status.CappedPatterns) != 0 {
		t.Errorf("capped patterns %+v, want none", r.status.CappedPatterns)
	}
}

// vocabulary is the few words wiki articles are written in, as in a
// generated wiki: every word is seen after a few articles, and only the
// order of the words tells two articles apart.
var vocabulary = strings.Fields("river stone lantern harbour meadow signal copper orchard valley thread engine winter garden bridge market")

// prose returns n sentences for article i, the same for the same i.
func prose(i, n int) string {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	var b strings.Builder
	for range n * 10 {
		b.WriteString(vocabulary[rng.IntN(len(vocabulary))])
		b.WriteByte(' ')
	}
	return b.String()
}

// wiki serves a MediaWiki-like site: articles /wiki/Article_N (one URL
// pattern) in a small vocabulary, with MediaWiki's chrome (edit, history,
// special pages, API, feeds, printable, old revisions, login) whose
// machinery pages link to more machinery.
func wiki(articles int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		title := strings.TrimPrefix(r.URL.Path, "/wiki/")
		if r.URL.Path == "/index.php" {
			title = r.URL.Query().Get("title")
		}
		switch {
		case r.URL.Path == "/load.php":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "body { color: black }")
			return
		case title == "" || r.URL.Path == "/api.php":
			http.NotFound(w, r)
			return
		}
		var body strings.Builder
		n, _ := strconv.Atoi(strings.TrimPrefix(title, "Article_"))
		if title == "Main_Page" {
			for i := range 10 { // the rest is found article by article
				fmt.Fprintf(&body, `<a href="/wiki/Article_%d">Article %d</a> `, i, i)
			}
		} else {
			fmt.Fprintf(&body, `<p>%s <a href="/wiki/Article_%d">next</a>.</p><p>%s <a href="/wiki/Article_%d">see</a></p>`,
				prose(n, 1), (n+1)%articles, prose(n+articles, 2), (n*7+3)%articles)
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>%[1]s</title>
<meta name="robots" content="index,follow">
<link rel="stylesheet" href="/load.php?lang=en&amp;modules=site.styles&amp;only=styles">
<link rel="alternate" type="application/atom+xml" href="/index.php?title=Special:RecentChanges&amp;feed=atom">
<link rel="EditURI" href="/api.php?action=rsd"></head><body>
<h1>%[1]s</h1>%[2]s
<a href="/wiki/Main_Page">Main Page</a>
<a href="/index.php?title=%[1]s&amp;action=edit">Edit</a>
<a href="/index.php?title=%[1]s&amp;action=history">History</a>
<a href="/index.php?title=%[1]s&amp;action=info">Page information</a>
<a href="/index.php?title=%[1]s&amp;printable=yes">Printable version</a>
<a href="/index.php?title=%[1]s&amp;oldid=%[3]d">Permanent link</a>
<a href="/index.php?title=%[1]s&amp;diff=%[3]d&amp;oldid=%[4]d">diff</a>
<a href="/wiki/Special:WhatLinksHere/%[1]s">What links here</a>
<a href="/wiki/Special:RecentChanges">Recent changes</a>
<a href="/wiki/Special:Random">Random page</a>
<a href="/index.php?title=Special:UserLogin&amp;returnto=%[1]s">Log in</a>
<p>This page was last edited on %[3]d November 2026.</p>
</body></html>`, title, body.String(), n+100, n+99)
	}
}

// Under the defaults a MediaWiki-like site is mirrored article by article
// and styled, and none of its machinery is asked for; the mirrored pages'
// links to the machinery stay absolute. Its articles share one URL
// pattern and one vocabulary, and are not taken for near-identical pages.
func TestTrapWikiMachinery(t *testing.T) {
	const articles = 300
	r := runTrapSite(t, wiki(articles), "/wiki/Main_Page", nil)
	for _, q := range r.site.requests() {
		if !strings.HasPrefix(q, "/wiki/Article_") && q != "/wiki/Main_Page" && q != "/robots.txt" && !strings.HasPrefix(q, "/load.php?") {
			t.Errorf("machinery requested: %s", q)
		}
	}
	got := 0
	for u, e := range r.lines {
		if strings.HasPrefix(u, r.base+"/wiki/Article_") && e.State == list.Downloaded {
			got++
		}
	}
	if got != articles {
		t.Errorf("%d of %d articles mirrored; capped: %+v", got, articles, r.status.CappedPatterns)
	}
	if css := r.count("/load.php"); css != 1 {
		t.Errorf("%d stylesheet lines, want 1", css)
	}
	page, err := os.ReadFile(filepath.Join(r.mdir, filepath.FromSlash(r.lines[r.base+"/wiki/Main_Page"].File)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `href="`+r.base+`/index.php?title=Main_Page&amp;action=edit"`) {
		t.Errorf("the mirrored page's edit link is not absolute:\n%s", page)
	}
	if r.status.Filtered[trap.Edit.Reason()] == 0 {
		t.Errorf("filtered %v, want the machinery counted", r.status.Filtered)
	}
}

// A gallery whose photo pages differ only in the photo they show is
// mirrored whole: a new photo is something new.
func TestTrapGalleryFollowed(t *testing.T) {
	const photos = 200
	h := func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/photo/"))
		if err != nil || n < 0 || n >= photos {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<title>Photo %d</title><img src="/img/%d.png"><a href="/photo/%d">previous</a> <a href="/photo/%d">next</a>`,
			n, n, (n+photos-1)%photos, (n+1)%photos)
	}
	r := runTrapSite(t, h, "/photo/0", nil)
	if n := r.count("/photo/"); n != photos || len(r.status.CappedPatterns) != 0 {
		t.Errorf("%d of %d photo pages; capped: %+v", n, photos, r.status.CappedPatterns)
	}
}

// A family named in Config.Traps.Follow is followed again; the others
// are still cut.
func TestTrapFollowFamily(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<a href="/feed/">feed</a> <a href="/news.rss">rss</a> <a href="/login">log in</a>`)
			return
		}
		fmt.Fprint(w, `<p>plain</p>`)
	}
	r := runTrapSite(t, h, "/", func(c *Config) { c.Traps.Follow = []trap.Family{trap.Feeds} })
	if r.count("/feed/") != 1 || r.count("/news.rss") != 1 || r.count("/login") != 0 {
		t.Errorf("requests %v: want the feeds and not the login page", r.site.requests())
	}
	if r.status.Filtered[trap.Accounts.Reason()] != 1 {
		t.Errorf("filtered %v, want the login link", r.status.Filtered)
	}
}

// A beacon a page loads as an image (DokuWiki's task runner, one URL per
// page) is neither fetched nor listed, though a page's other images are,
// and its link stays absolute; following the family fetches it again.
func TestTrapBeacon(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/p":
			fmt.Fprintf(w, `<p>page</p><img src="/logo.png"><a href="/p">p</a>`+
				`<img src="/lib/exe/taskrunner.php?id=%s" width="2" height="1">`, r.URL.Path[1:])
		default:
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "png")
		}
	}
	r := runTrapSite(t, h, "/", nil)
	if r.count("/lib/exe/") != 0 || r.count("/logo.png") != 1 || r.count("/p") != 1 {
		t.Errorf("lines %v: want the pages and the logo, and no task runner", r.lines)
	}
	for _, q := range r.site.requests() {
		if strings.Contains(q, "taskrunner") {
			t.Errorf("beacon requested: %s", q)
		}
	}
	if n := r.status.Filtered[trap.Beacons.Reason()]; n != 2 {
		t.Errorf("filtered %v, want the two pages' beacons", r.status.Filtered)
	}
	page, err := os.ReadFile(filepath.Join(r.mdir, filepath.FromSlash(r.lines[r.base+"/"].File)))
	if err != nil || !strings.Contains(string(page), `src="`+r.base+`/lib/exe/taskrunner.php?id="`) {
		t.Errorf("the mirrored page's beacon is not left absolute (%v):\n%s", err, page)
	}
	r = runTrapSite(t, h, "/", func(c *Config) { c.Traps.Follow = []trap.Family{trap.Beacons} })
	if r.count("/lib/exe/taskrunner.php") != 2 {
		t.Errorf("beacons followed: lines %v, want both pages' task runners", r.lines)
	}
}

// A trap capped in one run stays capped in the next, by the same spider
// or another one of the list: refreshing the calendar's days adds none.
func TestTrapCapSurvivesRestart(t *testing.T) {
	var version atomic.Int32 // each run's pages differ from the last run's: their links are read again
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<p>version %d</p>", version.Load())
		calendar(w, r)
	}))
	t.Cleanup(srv.Close)
	l, m, _ := openListMirror(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	run := func(spider string) int {
		t.Helper()
		version.Add(1)
		cfg := Config{
			Spider: spider, Profile: claim.Profile{Name: spider, Window: time.Hour, MaxLevel: -1, Batch: 50},
			Starts: []string{srv.URL + "/calendar/2026-11-21"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true,
			Now: func() time.Time { return now },
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := New(cfg, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second})).Run(ctx); err != nil || ctx.Err() != nil {
			t.Fatalf("Run: %v, %v", err, ctx.Err())
		}
		n := 0
		l.Scan(context.Background(), func(*list.Entry) error { n++; return nil })
		return n
	}
	first := run("slow")
	now = now.Add(2 * time.Hour) // every day is due again
	if again := run("slow"); again != first {
		t.Errorf("the restarted spider took %d more days of a capped calendar", again-first)
	}
	now = now.Add(2 * time.Hour)
	if other := run("other"); other != first {
		t.Errorf("another spider of the list took %d more days of a capped calendar", other-first)
	}
}

// A forum that puts a new session id in its links for a client without
// cookies is mirrored once, not once per session, and its copies link
// each other's files.
func TestTrapSessionIDsStripped(t *testing.T) {
	var sessions atomic.Int64
	h := func(w http.ResponseWriter, r *http.Request) {
		sid := r.URL.Query().Get("sid")
		if sid == "" {
			sid = fmt.Sprintf("%032x", 0xabc000+sessions.Add(1)) // a new session
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("t"))
		if r.URL.Path != "/viewtopic.php" || n < 0 || n >= 20 {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<p>Topic %s</p><a href="/viewtopic.php?t=%d&amp;sid=%s">next</a> <a href="/viewtopic.php?t=0&amp;sid=%s">first</a>`,
			words(n), (n+1)%20, sid, sid)
	}
	r := runTrapSite(t, h, "/viewtopic.php?t=0", nil)
	if n := r.count("/viewtopic.php"); n != 20 {
		t.Errorf("%d topic lines, want 20: %v", n, r.site.requests())
	}
	for u := range r.lines {
		if strings.Contains(u, "sid=") {
			t.Errorf("a line with a session id: %s", u)
		}
	}
	b, err := os.ReadFile(filepath.Join(r.mdir, filepath.FromSlash(r.lines[r.base+"/viewtopic.php?t=0"].File)))
	if err != nil || strings.Contains(string(b), "sid=") || !strings.Contains(string(b), "viewtopic.php") {
		t.Errorf("the copy of topic 0 (%v) does not link topic 1's file:\n%s", err, b)
	}
}

// The Bloom filter keeps both bits of a key in one cache line, two bits,
// and at a million keys says "seen" of an unseen key about once in 300.
func TestTrapsFilter(t *testing.T) {
	tr := newTraps(trap.Config{}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		b := tr.bits('t', rng.Uint64())
		if b[0] == b[1] || b[0]/lineBits != b[1]/lineBits || b[0] >= trapBits || b[1] >= trapBits {
			t.Fatalf("bits %d and %d: want two in one line of %d", b[0], b[1], lineBits)
		}
	}
	if tr.mark('t', 42) || !tr.mark('t', 42) || !tr.has('t', 42) {
		t.Fatal("a key marked is not seen")
	}
	const keys, probes = 1 << 20, 1 << 18
	for range keys {
		tr.mark('t', rng.Uint64())
	}
	seen := 0
	for range probes {
		if tr.has('t', rng.Uint64()) {
			seen++
		}
	}
	if rate := float64(seen) / probes; rate > 1.0/250 {
		t.Errorf("%d of %d unseen keys seen (1 in %.0f), want at most 1 in 250", seen, probes, 1/rate)
	}
}

// A page that writes a new time stamp into a link at every view
// (DokuWiki's task runner image, taskrunner.php?id=start&1795874888) is
// mirrored with one line for that link, not one per view, and a visit that
// finds nothing else changed keeps its copy as it was: not written again,
// counted unchanged. A change elsewhere in the page is still a change.
func TestCacheBusterIsNoChange(t *testing.T) {
	v := newEnv(t)
	v.site.set("/runner.php", 200, "runner")
	v.site.set("/p", 200, "leaf")
	var views atomic.Int64
	text := atomic.Value{}
	text.Store("Home")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			v.site.ServeHTTP(w, r)
			return
		}
		fmt.Fprintf(w, `<p>%s</p><img src="/runner.php?id=home&amp;%d" width="2" height="1"><a href="/p">p</a>`,
			text.Load(), 1795874888+views.Add(1))
	}))
	t.Cleanup(srv.Close)
	v.base = srv.URL
	home := filepath.Join(v.mdir, "127.0.0.1:"+strings.Split(srv.URL, ":")[2], "index.html")
	for visit, edit := range []bool{false, false, false, true} {
		if visit > 0 {
			v.clock = v.clock.Add(2 * time.Hour) // every line is due again
		}
		if edit {
			text.Store("Home, edited")
		}
		before, _ := os.Stat(home)
		sum := v.crawl(t, time.Hour)
		if n := v.lines(t); n != 3 {
			t.Fatalf("visit %d: %d lines, want 3 (the home page, its image and its link)", visit+1, n)
		}
		if visit == 0 {
			continue
		}
		after, err := os.Stat(home)
		if err != nil {
			t.Fatal(err)
		}
		rewritten := !after.ModTime().Equal(before.ModTime()) || after.Sys().(*syscall.Stat_t).Ino != before.Sys().(*syscall.Stat_t).Ino
		if rewritten != edit || (sum.Unchanged >= 3) == edit {
			t.Errorf("visit %d (page edited: %v): copy written again: %v; %+v", visit+1, edit, rewritten, sum)
		}
	}
	if b, err := os.ReadFile(home); err != nil || !strings.Contains(string(b), "Home, edited") || strings.Contains(string(b), "1795874") {
		t.Errorf("the copy of the home page (%v):\n%s", err, b)
	}
}

// A page read again as it is refreshed counts once toward its pattern's
// near-identical pages: a forum whose few topic pages are refreshed again
// and again, each time differing from before only in a number, keeps
// taking its new topics. Pages of the pattern that say nothing new are
// still counted, once each.
func TestTrapRereadCountsOnce(t *testing.T) {
	tr := newTraps(trap.Config{SimilarPages: 5}, slog.New(slog.DiscardHandler))
	const base = "http://forum.test/topic/"
	topic := func(i, rev int) (string, []byte) {
		return base + strconv.Itoa(i), fmt.Appendf(nil, "<h1>%s</h1><p>Revision %d of this topic.</p>", words(i), rev)
	}
	for i := range 3 {
		if why := tr.judge(base + strconv.Itoa(i)); why != "" {
			t.Fatalf("topic %d cut: %s", i, why)
		}
	}
	for rev := range 20 {
		for i := range 3 {
			u, body := topic(i, rev)
			tr.read(u, body, nil)
		}
	}
	if why := tr.judge(base + "3"); why != "" {
		t.Errorf("a new topic cut after 60 reads of 3 topics: %s", why)
	}
	// Five more topics, each with the words of topic 0: near-identical.
	for i := 4; i < 9; i++ {
		u := base + strconv.Itoa(i)
		if why := tr.judge(u); why != "" {
			t.Fatalf("topic %d cut: %s", i, why)
		}
		_, body := topic(0, i)
		tr.read(u, body, nil)
	}
	if why := tr.judge(base + "9"); why != trap.ReasonSimilar {
		t.Errorf("after 5 near-identical topics, a new one: %q, want cut as %q", why, trap.ReasonSimilar)
	}
}
