package crawl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// fakeSite serves fixed answers per path that a test can change.
type fakeSite struct {
	mu     sync.Mutex
	status map[string]int
	body   map[string]string
	hits   map[string]int
	// etag, if set for a path, is sent with its answer, and a request
	// whose If-None-Match names it is answered 304 (counted in notMod).
	etag   map[string]string
	notMod map[string]int
}

func (s *fakeSite) set(path string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status[path], s.body[path] = status, body
}

func (s *fakeSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	st, ok := s.status[r.URL.Path]
	body := s.body[r.URL.Path]
	s.hits[r.URL.Path]++
	etag := s.etag[r.URL.Path]
	if etag != "" && r.Header.Get("If-None-Match") == etag {
		s.notMod[r.URL.Path]++
		st = http.StatusNotModified
	}
	s.mu.Unlock()
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if !ok {
		st = http.StatusNotFound
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if st >= 300 && st < 400 {
		w.Header().Set("Location", body) // a redirect's body is its target
	}
	if strings.HasSuffix(r.URL.Path, ".png") {
		w.Header().Set("Content-Type", "image/png")
	}
	w.WriteHeader(st)
	w.Write([]byte(body))
}

type env struct {
	site  *fakeSite
	base  string
	list  *list.List
	mdir  string
	m     *mirror.Mirror
	clock time.Time
	cfg   func(*Config) // if set, changes the config of the next crawls
	// ignoreRobots is passed on to Config.IgnoreRobots.
	ignoreRobots bool
}

// hits returns how often the site was asked for path.
func (v *env) hits(path string) int {
	v.site.mu.Lock()
	defer v.site.mu.Unlock()
	return v.site.hits[path]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	site := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}, etag: map[string]string{}, notMod: map[string]int{}}
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	l, m, mdir := openListMirror(t)
	return &env{site: site, base: srv.URL, list: l, mdir: mdir, m: m,
		clock: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
}

// crawl runs one --until-idle spider at the env's clock.
func (v *env) crawl(t *testing.T, window time.Duration) Summary {
	t.Helper()
	now := v.clock
	cfg := Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: window, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true,
		Now: func() time.Time { return now }, IgnoreRobots: v.ignoreRobots,
	}
	if v.cfg != nil {
		v.cfg(&cfg)
	}
	e := New(cfg, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
	sum, err := e.Run(context.Background())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

// engine returns an engine of the slow profile over the env at its clock,
// for a test that drives its parts (process) without Run.
func (v *env) engine() *Engine {
	return New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 2, Lease: time.Minute, Now: func() time.Time { return v.clock }, IgnoreRobots: v.ignoreRobots},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
}

func (v *env) line(t *testing.T, u string) list.Entry {
	t.Helper()
	var found list.Entry
	v.list.Scan(context.Background(), func(e *list.Entry) error {
		if e.URL == u {
			found = e.Clone()
		}
		return nil
	})
	if found.URL == "" {
		t.Fatalf("no line for %s", u)
	}
	return found
}

// file returns the content of a mirror file, without the <meta charset>
// that the spider puts at the start of a page served without one (these
// pages have no <head>; rewrite.Charset).
func (v *env) file(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v.mdir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("mirror file %s: %v", rel, err)
	}
	return strings.TrimPrefix(string(b), `<meta charset="utf-8">`)
}

// A copy survives every kind of failure; only a 2xx replaces it, and only
// three 404s over an hour (the defaults) or a 410 archive the line.
func TestFailedFetchKeepsCopy(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/page">p</a>`)
	v.site.set("/page", 200, "version 1")
	if sum := v.crawl(t, time.Hour); sum.Fetched != 2 {
		t.Fatalf("first crawl fetched %d pages, want 2", sum.Fetched)
	}
	page := v.base + "/page"
	first := v.line(t, page)
	if first.State != list.Downloaded || v.file(t, first.File) != "version 1" {
		t.Fatalf("after first crawl: %+v", first)
	}

	steps := []struct {
		status    int
		body      string
		wantState list.State
		wantCopy  string
	}{
		{500, "server error page", list.Error, "version 1"},
		{503, "", list.Error, "version 1"},
		{403, "forbidden", list.Error, "version 1"},
		{404, "not found page", list.Error, "version 1"}, // one 404 is not enough
		{200, "version 1", list.Downloaded, "version 1"}, // it was a glitch
		{404, "not found page", list.Error, "version 1"},
		{404, "not found page", list.Error, "version 1"},
		{404, "not found page", list.Archived, "version 1"}, // confirmed: three over four hours
		{200, "version 2", list.Downloaded, "version 2"},    // the page came back
		{410, "gone", list.Archived, "version 2"},
	}
	for _, s := range steps {
		v.clock = v.clock.Add(2 * time.Hour)
		v.site.set("/page", s.status, s.body)
		v.crawl(t, time.Hour)
		got := v.line(t, page)
		if got.State != s.wantState || got.Spider != "" {
			t.Errorf("after %d: line %+v, want state %v, unclaimed", s.status, got, s.wantState)
		}
		// An archived copy carries a banner; a fresh copy none.
		c := v.file(t, first.File)
		if banner := rewrite.HasBanner([]byte(c)); banner != (s.wantState == list.Archived) {
			t.Errorf("after %d: banner %v in %q", s.status, banner, c)
		}
		if c := string(rewrite.Unbanner([]byte(c))); c != s.wantCopy {
			t.Errorf("after %d: copy %q, want %q", s.status, c, s.wantCopy)
		}
	}
	// The last step archived the page: the spider's published status says so.
	sts, err := list.ReadStatuses(v.list.Path())
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses %+v, %v", sts, err)
	}
	var st Status
	if err := json.Unmarshal(sts[0].Extra, &st); err != nil || len(st.ArchivedLastDay) != 1 || st.ArchivedLastDay[0].URL != page {
		t.Errorf("published status %+v, %v", st, err)
	}
}

// A failing URL is not fetched again at every pass of the same spider.
func TestBackoffBoundsRetries(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/broken">b</a>`)
	v.site.set("/broken", 500, "")
	v.crawl(t, time.Hour)
	v.site.mu.Lock()
	hits := v.site.hits["/broken"]
	v.site.mu.Unlock()
	if hits != 1 {
		t.Errorf("/broken fetched %d times in one run, want 1 (backoff)", hits)
	}
}

// Redirect targets become lines of their own; the redirecting URL keeps a
// copy so links to it work in the mirror: a page that forwards to the
// target's copy, which the target's own line keeps current. A later visit
// that finds the same redirect does not fetch the target through it (once
// a visit, by its own line, not twice), and keeps the copy; a redirect
// elsewhere forwards there. A redirect to a file that is not a page keeps
// a copy of it.
func TestRedirectTargetJoinsList(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/old">o</a> <a href="/logo">l</a>`)
	v.site.set("/old", 301, "/new")
	v.site.set("/new", 200, "<p>moved here</p>")
	v.site.set("/new2", 200, "<p>moved again</p>")
	v.site.set("/logo", 302, "/logo.png")
	v.site.set("/logo.png", 200, "PNG")
	forwards := func(from, to string) {
		t.Helper()
		old, moved := v.line(t, v.base+from), v.line(t, v.base+to)
		want := string(rewrite.Forward(rewrite.Rel(old.File, moved.File)))
		if old.State != list.Downloaded || moved.State != list.Downloaded || v.file(t, old.File) != want {
			t.Errorf("%s %+v (%q), %s %+v", from, old, v.file(t, old.File), to, moved)
		}
		if r := historyOf(t, v.list, v.base+from); !r.Forwards || r.RedirectTo != v.base+to {
			t.Errorf("%s records %+v, want a copy that forwards to %s", from, r, to)
		}
	}
	v.crawl(t, time.Hour)
	forwards("/old", "/new")
	if got := v.file(t, v.line(t, v.base+"/logo").File); got != "PNG" {
		t.Errorf("/logo's copy holds %q, want the image", got)
	}
	if n := v.site.hits["/new"]; n != 2 {
		t.Errorf("/new requested %d times by a first visit, want 2 (its line and the redirect)", n)
	}
	v.clock = v.clock.Add(2 * time.Hour) // every line is due again
	v.crawl(t, time.Hour)
	forwards("/old", "/new")
	if n := v.site.hits["/new"]; n != 3 {
		t.Errorf("/new requested %d times after a second visit, want 3: once more, by its own line", n)
	}
	if r := historyOf(t, v.list, v.base+"/old"); r.Status != 301 || r.Unchanged != 1 {
		t.Errorf("/old records %+v after the same redirect, want 301 and unchanged", r)
	}
	if n := v.site.hits["/logo.png"]; n != 4 {
		t.Errorf("/logo.png requested %d times, want 4: a copy of what is not a page is fetched through the redirect", n)
	}
	v.site.set("/old", 301, "/new2")
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour) // /new2 is found by this visit, fetched by the next
	v.crawl(t, time.Hour)
	forwards("/old", "/new2")
}

// A redirect goes only where a link would: not to a URL robots.txt
// forbids, nor to one [scope] excludes, nor into the site's machinery; the
// redirecting line's copy forwards to the target online, as a link to it
// would stay absolute, and the target is neither requested nor listed; the
// same redirect at the next visit keeps the copy. A redirect within the
// rules is followed.
func TestRedirectFollowsTheRules(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Scope.Exclude = []string{"/excluded/"} }
	v.site.set("/robots.txt", 200, "User-agent: *\nDisallow: /private/\n")
	v.site.set("/", 200, `<a href="/go-private">1</a> <a href="/go-excluded">2</a> <a href="/go-edit">3</a> <a href="/go-ok">4</a>`)
	v.site.set("/go-private", 302, "/private/p.html")
	v.site.set("/go-excluded", 302, "/excluded/x.html")
	v.site.set("/go-edit", 302, "/index.php?title=X&action=edit")
	v.site.set("/go-ok", 302, "/ok.html")
	for _, p := range []string{"/private/p.html", "/excluded/x.html", "/index.php", "/ok.html"} {
		v.site.set(p, 200, "<p>"+p)
	}
	v.crawl(t, time.Hour)
	for _, p := range []string{"/private/p.html", "/excluded/x.html", "/index.php"} {
		if n := v.site.hits[p]; n > 0 {
			t.Errorf("%s requested %d times through a redirect", p, n)
		}
	}
	refused := map[string]string{"/go-private": "/private/p.html", "/go-excluded": "/excluded/x.html", "/go-edit": "/index.php?title=X&action=edit"}
	forwardsAway := func(run string) {
		t.Helper()
		for from, to := range refused {
			e := v.line(t, v.base+from)
			if e.State != list.Downloaded || string(rewrite.Forward(v.base+to)) != v.file(t, e.File) {
				t.Errorf("%s %s: %+v (%q), want a copy that forwards to %s online", run, from, e, v.file(t, e.File), to)
			}
			if r := historyOf(t, v.list, v.base+from); r.RedirectTo != v.base+to || r.Forwards || r.Error != "" { // Forwards: to a line of the site's
				t.Errorf("%s %s records %+v", run, from, r)
			}
		}
	}
	forwardsAway("first visit")
	if e := v.line(t, v.base+"/ok.html"); e.State != list.Downloaded || v.site.hits["/ok.html"] == 0 {
		t.Errorf("/ok.html: %+v, want downloaded through the redirect", e)
	}
	v.list.Scan(context.Background(), func(e *list.Entry) error {
		if strings.Contains(e.URL, "/private/") || strings.Contains(e.URL, "/excluded/") || strings.Contains(e.URL, "action=edit") {
			t.Errorf("a redirect's refused target is listed: %s", e.URL)
		}
		return nil
	})
	v.clock = v.clock.Add(2 * time.Hour) // every line is due again
	v.crawl(t, time.Hour)
	forwardsAway("second visit")
	if r := historyOf(t, v.list, v.base+"/go-excluded"); r.Unchanged != 1 {
		t.Errorf("/go-excluded records %+v after the same redirect, want unchanged", r)
	}
}

// A redirect the spider does not follow leaves a forward only where no
// harm is done (staysAway): a start URL that redirects to another host
// fails the run, as a dead start URL does; a page with a good copy that
// starts redirecting to a login elsewhere fails and keeps its copy; and a
// forward to an excluded URL gives way to the page once it is allowed.
func TestRefusedRedirectHarmsNothing(t *testing.T) {
	other := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}}
	other.set("/", 200, "elsewhere")
	other.set("/login", 200, "log in")
	srvB := httptest.NewServer(other)
	defer srvB.Close()

	t.Run("start URL", func(t *testing.T) {
		v := newEnv(t)
		v.site.set("/", 301, srvB.URL+"/")
		e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
			Starts: []string{v.base + "/"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true, Now: func() time.Time { return v.clock }},
			v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
		if _, err := e.Run(context.Background()); !errors.Is(err, ErrStartFailed) || !strings.Contains(err.Error(), "not followed") {
			t.Errorf("run: %v, want the start URL failed, its redirect not followed", err)
		}
		if e := v.line(t, v.base+"/"); e.File != "" {
			t.Errorf("the start line has a copy: %+v", e)
		}
	})

	// keepsCopy mirrors the site whose /p is served as p, then has /p
	// redirect to a login elsewhere: /p must fail and keep its copy.
	keepsCopy := func(t *testing.T, p func(*fakeSite)) {
		v := newEnv(t)
		v.site.set("/", 200, `<a href="/p">p</a>`)
		v.site.set("/page", 200, "<p>the page")
		p(v.site)
		v.crawl(t, time.Hour)
		before := v.file(t, v.line(t, v.base+"/p").File)
		v.site.set("/p", 302, srvB.URL+"/login")
		v.clock = v.clock.Add(2 * time.Hour)
		v.crawl(t, time.Hour)
		if e := v.line(t, v.base+"/p"); e.State != list.Error || before == "" || v.file(t, e.File) != before {
			t.Errorf("/p: %+v (%q), want an error and its copy %q kept", e, v.file(t, e.File), before)
		}
	}
	t.Run("good copy", func(t *testing.T) { keepsCopy(t, func(s *fakeSite) { s.set("/p", 200, "<p>the page") }) })
	t.Run("a forward to a page of the site", func(t *testing.T) { keepsCopy(t, func(s *fakeSite) { s.set("/p", 302, "/page") }) })

	t.Run("a login's fresh state each time", func(t *testing.T) {
		v := newEnv(t)
		v.site.set("/", 200, `<a href="/sso">sso</a>`)
		v.site.set("/sso", 302, srvB.URL+"/login?state=1")
		if sum := v.crawl(t, time.Hour); sum.Forwarded != 1 || sum.Fetched != 1 {
			t.Errorf("first run: %+v, want the start page fetched and /sso forwarded", sum)
		}
		first := v.file(t, v.line(t, v.base+"/sso").File)
		v.site.set("/sso", 302, srvB.URL+"/login?state=2")
		v.clock = v.clock.Add(2 * time.Hour)
		v.crawl(t, time.Hour)
		if got, r := v.file(t, v.line(t, v.base+"/sso").File), historyOf(t, v.list, v.base+"/sso"); got != first || r.Unchanged != 1 {
			t.Errorf("/sso: %q, %+v; want its forward kept, unchanged", got, r)
		}
	})

	t.Run("target allowed later", func(t *testing.T) {
		v := newEnv(t)
		excluded := true
		v.cfg = func(c *Config) {
			if excluded {
				c.Scope.Exclude = []string{"/target"}
			}
		}
		v.site.set("/", 200, `<a href="/go">go</a>`)
		v.site.set("/go", 302, "/target.html")
		v.site.set("/target.html", 200, "<p>target")
		v.crawl(t, time.Hour)
		if r := historyOf(t, v.list, v.base+"/go"); r.Forwards || r.RedirectTo != v.base+"/target.html" || v.site.hits["/target.html"] != 0 {
			t.Fatalf("/go records %+v, target requested %d times: want a forward online, the target untouched", r, v.site.hits["/target.html"])
		}
		excluded = false
		for range 2 { // the first visit finds the target, the next fetches it
			v.clock = v.clock.Add(2 * time.Hour)
			v.crawl(t, time.Hour)
		}
		g, target := v.line(t, v.base+"/go"), v.line(t, v.base+"/target.html")
		if target.State != list.Downloaded || v.file(t, g.File) != string(rewrite.Forward(rewrite.Rel(g.File, target.File))) {
			t.Errorf("/go %+v (%q), target %+v: want the target mirrored and /go forwarding to its copy", g, v.file(t, g.File), target)
		}
	})
}

// A requisite of a page [scope] include picks is fetched through its
// redirect, though neither matches include: include picks pages.
func TestRequisiteRedirectOutsideInclude(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Scope.Include = []string{"/docs/"}; c.Scope.Requisites = true }
	v.site.set("/", 200, `<a href="/docs/a">a</a>`)
	v.site.set("/docs/a", 200, `<img src="/static/a.png">`)
	v.site.set("/static/a.png", 301, "/static/v2/a.png")
	v.site.set("/static/v2/a.png", 200, "PNG")
	v.crawl(t, time.Hour)
	if e := v.line(t, v.base+"/static/a.png"); e.State != list.Downloaded || v.file(t, e.File) != "PNG" {
		t.Errorf("the page's image: %+v, want its copy through the redirect", e)
	}
}

// A spider that has not published a heartbeat for half its lease (it was
// stopped, say) may have lost its claims: it must not write what it
// fetched, which may be older than another spider's newer copy. Nor may it
// once it has noticed the gap: claims from before it are void.
func TestStalledSpiderDoesNotWrite(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Window: time.Hour, MaxLevel: -1, Batch: 1},
		Lease: time.Minute, Now: func() time.Time { return v.clock }}, v.list, v.m, fetch.New(fetch.Options{Timeout: 5 * time.Second, MaxBody: 1 << 20}))
	page := func(body string) *fetch.Response {
		return &fetch.Response{URL: v.base + "/", Status: 200, MediaType: "text/html", Body: []byte(body)}
	}
	en := list.Entry{URL: v.base + "/", Level: 0}
	store := func(epoch int64, body string, now time.Time) *outcome {
		o := &outcome{job: job{en: en, epoch: epoch}, res: list.Result{URL: en.URL}, epoch: epoch, rec: &meta.Record{}}
		e.store(o, page(body), now)
		return o
	}
	e.beat(v.clock.Add(-2 * time.Minute))
	old := e.lease.current()
	if o := store(old, "old", v.clock); o.res.State != 0 || o.adds != nil || o.copy != nil || o.rec != nil {
		t.Errorf("stalled spider recorded %+v", o)
	}
	if _, err := v.m.Stat("127.0.0.1"); err == nil {
		t.Error("stalled spider wrote into the mirror")
	}
	e.beat(v.clock) // it wakes up and beats: the gap starts a new epoch
	if e.lease.current() == old {
		t.Fatal("a gap longer than half the lease did not start a new epoch")
	}
	if o := store(old, "old", v.clock); o.res.State != 0 || o.copy != nil {
		t.Errorf("claim from before the gap recorded %+v", o.res)
	}
	if o := store(e.lease.current(), "new", v.clock); o.res.State != list.Downloaded {
		t.Errorf("fresh claim: %+v", o.res)
	}
	e.beat(v.clock.Add(20 * time.Second)) // a normal gap keeps the epoch
	if o := store(e.lease.current(), "new", v.clock.Add(20*time.Second)); o.res.State != list.Downloaded {
		t.Errorf("after a normal beat: %+v", o.res)
	}
}

// A start URL seeded on another host while the spider runs (spider seed)
// has its links followed too: level-0 lines define the scope.
func TestSeededHostJoinsScope(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, "site A")
	other := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}}
	other.set("/", 200, `<a href="/b-page">b</a>`)
	other.set("/b-page", 200, "page of B")
	srvB := httptest.NewServer(other)
	defer srvB.Close()
	if _, err := v.list.Add(context.Background(), []list.Add{{URL: srvB.URL + "/", Level: 0}}); err != nil {
		t.Fatal(err)
	}
	v.crawl(t, time.Hour) // starts and scope: site A only
	if e := v.line(t, srvB.URL+"/b-page"); e.State != list.Downloaded {
		t.Errorf("link on the seeded host not followed: %+v", e)
	}
}

// An image of the start page on another host (a CDN) is fetched, at level
// 1, and its host is no start host: a page of that host that the site
// links later is not followed (a level-0 line's host was in scope, so a
// third-party site was crawled from its image).
func TestStartPageRequisiteHostNotFollowed(t *testing.T) {
	other := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}}
	other.set("/cdn.png", 200, "png")
	other.set("/linked.html", 200, `<a href="/deeper.html">d</a>`)
	srvB := httptest.NewServer(other)
	defer srvB.Close()
	v := newEnv(t)
	v.cfg = func(c *Config) { c.Scope.Requisites = true }
	v.site.set("/", 200, `<img src="`+srvB.URL+`/cdn.png"><a href="/a">a</a>`)
	v.site.set("/a", 200, `nothing yet`)
	v.crawl(t, time.Hour)
	if e := v.line(t, srvB.URL+"/cdn.png"); e.State != list.Downloaded || e.Level != 1 {
		t.Errorf("the start page's image: %+v, want downloaded at level 1", e)
	}
	// The next run refreshes every line; /a now links a page of the CDN.
	v.site.set("/a", 200, `<a href="`+srvB.URL+`/linked.html">elsewhere</a>`)
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	if other.hits["/linked.html"] > 0 || other.hits["/deeper.html"] > 0 {
		t.Errorf("the image's host was crawled: %v", other.hits)
	}
}

func chtimes(root, rel string, t time.Time) error {
	return os.Chtimes(filepath.Join(root, filepath.FromSlash(rel)), t, t)
}

// openListMirror opens a new list and a new mirror (directory mdir) in a
// temporary directory, for one test.
func openListMirror(t testing.TB) (*list.List, *mirror.Mirror, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := list.Open(filepath.Join(dir, "spider.list"), list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		t.Fatal(err)
	}
	mdir := filepath.Join(dir, "mirror")
	m, err := mirror.Open(mdir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return l, m, mdir
}

// A run that ends on its own (MaxCycles) still fetches the lines its last
// pass claimed, and records them: they were handed back unfetched, a
// batch claimed for nothing at every such end.
func TestLastClaimsFetched(t *testing.T) {
	for cycles := 1; cycles <= 2; cycles++ {
		v := newEnv(t)
		v.site.set("/", 200, `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)
		for _, p := range []string{"/a", "/b", "/c"} {
			v.site.set(p, 200, p)
		}
		v.cfg = func(c *Config) { c.MaxCycles, c.Ahead, c.UntilIdle = cycles, -1, false }
		sum := v.crawl(t, time.Hour)
		want := map[int]int{1: 1, 2: 4}[cycles] // the start page; then its links too
		if sum.Fetched != want {
			t.Errorf("%d passes: fetched %d, want %d", cycles, sum.Fetched, want)
		}
		if en := v.line(t, v.base+"/"); en.State != list.Downloaded || en.Spider != "" {
			t.Errorf("%d passes: start line %+v, want downloaded and unclaimed", cycles, en)
		}
	}
}

// Lines fetched ahead while fetching ahead was on still get a pass to
// decide their claim after it went off, with nothing else in flight: the
// spider stalled, waiting for an event that never came.
func TestPassDueForAheadAfterOff(t *testing.T) {
	r := testRun(t)
	now := time.Now()
	r.lastPass = now
	r.jobs.ahead.links(list.Entry{URL: "http://h/", Level: 0}, []list.Add{{URL: "http://h/a", Level: 1}}, -1, 0, fetchNow)
	j, _ := r.jobs.take()
	o := &outcome{job: j, res: list.Result{URL: j.en.URL, State: list.Downloaded}}
	o.take = r.jobs.found(o, -1, 0)
	r.received(o)
	r.jobs.ahead.set(false)
	if !r.passDue(now) {
		t.Error("no pass due for a line fetched ahead whose claim is undecided, fetching ahead off, nothing in flight")
	}
}

// A Crawl-delay longer than the spider's delay is said once, with the
// requests an hour it leaves: a short run that fetched next to nothing
// tells why (found by a user-level review: 2m, and a silent run).
func TestCrawlDelayIsSaid(t *testing.T) {
	v := newEnv(t)
	var buf bytes.Buffer
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 1, Lease: time.Minute, Delay: time.Second,
		Logger: slog.New(slog.NewTextHandler(&buf, nil))}, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	for _, d := range []time.Duration{2 * time.Minute, 2 * time.Minute, time.Second / 2, 10 * time.Second} {
		e.setCrawlDelay("h.test", d)
	}
	if got := strings.Count(buf.String(), "robots.txt sets the host's pace"); got != 2 ||
		!strings.Contains(buf.String(), "crawl_delay=2m0s delay=1s requests_per_hour=30") {
		t.Errorf("logged %d times, want 2 (2m, then 10s; not 2m again, nor half a second):\n%s", got, buf.String())
	}
}
