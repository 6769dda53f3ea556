package crawl

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// storedPage is a page stored (Engine.store) in a step of
// TestLinkDecidedOnce, and what must come of its links.
type storedPage struct {
	url   string
	final string // the URL the fetch ended at, if it was redirected
	level int
	body  string
	taken []list.Add // the links taken, in order
	held  []string   // the links the budget held back
	// links (as written in body) rewritten into the mirror, and links
	// left absolute
	rewritten, absolute []string
	have                []string // pages whose copies the mirror holds before
	dirs                []string // pages whose file names are directories of the mirror before
}

// A link is decided once, as its page is rewritten into the mirror
// (decideLink), and what is taken from the page asks that decision: the
// links rewritten and the links taken must agree with the rules each
// applies on its own (nofollow and the level limit and the budget for
// taking only), whichever page decided a link first.
func TestLinkDecidedOnce(t *testing.T) {
	const site = "http://site.test"
	const sid = "sid=0123456789abcdef0123456789abcdef"
	a := func(links ...string) string {
		var b strings.Builder
		for _, l := range links {
			if u, ok := strings.CutPrefix(l, "img "); ok {
				b.WriteString(`<img src="` + u + `">`)
			} else if u, ok := strings.CutPrefix(l, "nofollow "); ok {
				b.WriteString(`<a rel="nofollow" href="` + u + `">x</a>`)
			} else {
				b.WriteString(`<a href="` + l + `">x</a>`)
			}
		}
		return "<html><body>" + b.String() + "</body></html>"
	}
	for _, tt := range []struct {
		name  string
		cfg   func(*Config)
		pages []storedPage
	}{
		{"nofollow is not taken, and linked online", nil, []storedPage{{
			url: site + "/", body: a("nofollow "+site+"/n", site+"/f", "img "+site+"/i.png"),
			taken:     []list.Add{{URL: site + "/f", Level: 1}, {URL: site + "/i.png", Level: 1}},
			rewritten: []string{site + "/f", site + "/i.png"}, absolute: []string{site + "/n"},
		}, {
			url: site + "/other", level: 1, body: a(site + "/n"), // decided by the page before
			taken: []list.Add{{URL: site + "/n", Level: 2}},
		}}},
		{"nofollow linked to the mirror's copy", nil, []storedPage{{
			url: site + "/", body: a("nofollow "+site+"/has", "nofollow "+site+"/n", site+"/n"),
			have:      []string{site + "/has"},
			taken:     []list.Add{{URL: site + "/n", Level: 1}}, // followed once: taken
			rewritten: []string{site + "/has", site + "/n"},
		}}},
		{"nofollow to a page the page follows", nil, []storedPage{{
			url: site + "/", body: a(site+"/n", "nofollow "+site+"/n?"+sid),
			taken:     []list.Add{{URL: site + "/n", Level: 1}},
			rewritten: []string{site + "/n", site + "/n?" + sid},
		}}},
		{"nofollow to a directory of the mirror", nil, []storedPage{{
			url: site + "/", body: a("nofollow " + site + "/d"),
			dirs:     []string{site + "/d"},
			absolute: []string{site + "/d"},
		}}},
		{"forms online", nil, []storedPage{{
			url: site + "/", body: `<form action="/w/index.php"><input name=search></form>` + a(site+"/f"),
			taken:     []list.Add{{URL: site + "/f", Level: 1}},
			rewritten: []string{site + "/f"}, absolute: []string{site + "/w/index.php"},
		}}},
		{"nofollow ignored with robots.txt", func(c *Config) { c.IgnoreRobots = true }, []storedPage{{
			url: site + "/", body: a("nofollow " + site + "/n"),
			taken: []list.Add{{URL: site + "/n", Level: 1}}, rewritten: []string{site + "/n"},
		}}},
		{"requisites across hosts", func(c *Config) { c.Scope.Requisites = true }, []storedPage{{
			url: site + "/", body: a("img http://cdn.test/i.png", "http://cdn.test/p"),
			taken:     []list.Add{{URL: "http://cdn.test/i.png", Level: 1}},
			rewritten: []string{"http://cdn.test/i.png"}, absolute: []string{"http://cdn.test/p"},
		}, {
			url: "http://other.test/", body: a("img http://cdn.test/i.png"), // a page out of scope
			absolute: []string{"http://cdn.test/i.png"},
		}}},
		{"requisites on their host only", nil, []storedPage{{
			url: site + "/", body: a("img http://cdn.test/i.png", "img "+site+"/i.png"),
			taken:     []list.Add{{URL: site + "/i.png", Level: 1}},
			rewritten: []string{site + "/i.png"}, absolute: []string{"http://cdn.test/i.png"},
		}}},
		{"level limit", func(c *Config) { c.Scope.Limits.MaxLevel = 2 }, []storedPage{{
			url: site + "/deep", level: 2, body: a(site+"/p", "img "+site+"/i.png"),
			taken:     []list.Add{{URL: site + "/i.png", Level: 2}}, // a requisite shares its page's level
			rewritten: []string{site + "/p", site + "/i.png"},       // the mirror links it all the same
		}, {
			url: site + "/up", level: 1, body: a(site + "/p"), // the same link, decided, within the limit
			taken: []list.Add{{URL: site + "/p", Level: 2}}, rewritten: []string{site + "/p"},
		}}},
		{"capped pattern", func(c *Config) { c.Traps.DateURLs = 2 }, []storedPage{{
			url: site + "/", body: a(site+"/cal/2024-01-01", site+"/cal/2024-01-02"),
			taken:     []list.Add{{URL: site + "/cal/2024-01-01", Level: 1}, {URL: site + "/cal/2024-01-02", Level: 1}},
			rewritten: []string{site + "/cal/2024-01-01", site + "/cal/2024-01-02"},
		}, {
			// The pattern is capped: a link taken stays taken, a new one is
			// cut, in the mirror as in the list.
			url: site + "/cal/2024-01-01", level: 1, body: a(site+"/cal/2024-01-03", site+"/cal/2024-01-02"),
			taken:     []list.Add{{URL: site + "/cal/2024-01-02", Level: 2}},
			rewritten: []string{site + "/cal/2024-01-02"}, absolute: []string{site + "/cal/2024-01-03"},
		}}},
		{"held by the budget", func(c *Config) { c.MaxNewPerHost = 1 }, []storedPage{{
			url: site + "/", body: a(site+"/a", site+"/b?t=1&amp;"+sid, "img "+site+"/i.png"),
			taken:     []list.Add{{URL: site + "/a", Level: 1}},
			held:      []string{site + "/b?t=1", site + "/i.png"}, // as the crawl takes them: no session
			rewritten: []string{site + "/a", site + "/i.png"},
		}, {
			url: site + "/a", level: 1, body: a(site + "/a"), // taken in this pass already: no budget
			taken: []list.Add{{URL: site + "/a", Level: 2}},
		}}},
		{"redirected out of scope", func(c *Config) { c.Scope.Requisites = true }, []storedPage{{
			// The copy is of a page out of scope, the line in scope: the
			// copy links the requisites as they are, the line takes them.
			url: site + "/r", final: "http://other.test/p", body: a("img http://cdn.test/i.png", "img http://other.test/j.png"),
			taken:    []list.Add{{URL: "http://cdn.test/i.png", Level: 1}, {URL: "http://other.test/j.png", Level: 1}},
			absolute: []string{"http://cdn.test/i.png", "http://other.test/j.png"},
		}}},
		{"links repeated", nil, []storedPage{{
			url: site + "/", body: a(slices.Repeat([]string{site + "/x"}, 100)...) + a(site+"/y", "img "+site+"/x"),
			taken:     []list.Add{{URL: site + "/x", Level: 1}, {URL: site + "/y", Level: 1}},
			rewritten: []string{site + "/x", site + "/y"},
		}}},
		{"sessions stripped", nil, []storedPage{{
			url: site + "/", body: a(site + "/v?t=1&amp;" + sid),
			taken: []list.Add{{URL: site + "/v?t=1", Level: 1}},
		}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := slowEngine(t, site+"/", tt.cfg)
			for _, p := range tt.pages {
				for _, u := range p.have {
					file, _ := e.linkFile(u, extract.Page, true)
					if err := e.mirror.Write(file, []byte("copy")); err != nil {
						t.Fatal(err)
					}
				}
				for _, u := range p.dirs {
					file, _ := e.linkFile(u, extract.Page, true)
					if err := e.mirror.Write(file+"/x.html", []byte("copy")); err != nil {
						t.Fatal(err)
					}
				}
				o, out := storeBody(t, e, p.url, p.final, p.level, p.body)
				if !slices.Equal(o.adds, p.taken) {
					t.Errorf("%s: taken %v, want %v", p.url, o.adds, p.taken)
				}
				var held []string
				for _, h := range o.rec.Held {
					held = append(held, h.URL)
				}
				if !slices.Equal(held, p.held) {
					t.Errorf("%s: held %v, want %v", p.url, held, p.held)
				}
				for _, u := range p.rewritten {
					if strings.Contains(out, `"`+u+`"`) {
						t.Errorf("%s: link %s not rewritten into the mirror:\n%s", p.url, u, out)
					}
				}
				for _, u := range p.absolute {
					if !strings.Contains(out, `"`+u+`"`) {
						t.Errorf("%s: link %s not left absolute:\n%s", p.url, u, out)
					}
				}
			}
		})
	}
}

// slowEngine returns an engine of the slow profile, starting at start, on
// a list and a mirror of its own, with adjust's changes to its config if
// not nil.
func slowEngine(tb testing.TB, start string, adjust func(*Config)) *Engine {
	l, m, _ := openListMirror(tb)
	cfg := Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{start}, Concurrency: 1, Now: time.Now}
	if adjust != nil {
		adjust(&cfg)
	}
	return New(cfg, l, m, fetch.New(fetch.Options{UserAgent: "test"}))
}

// storeBody stores the HTML page body fetched from u (ending at final,
// if not empty), a line at level, as a first visit, and returns the
// outcome and the copy's body.
func storeBody(t *testing.T, e *Engine, u, final string, level int, body string) (*outcome, string) {
	t.Helper()
	en := list.Entry{URL: u, Level: level}
	o := &outcome{job: job{en: en}, res: list.Result{URL: u}, rec: &meta.Record{}}
	resp := &fetch.Response{URL: u, Status: 200, MediaType: "text/html",
		Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: []byte(body)}
	if final != "" {
		resp.URL, resp.Redirects = final, []string{u}
	}
	e.store(o, resp, time.Now())
	if o.copy == nil {
		t.Fatalf("%s: not stored: %+v", u, o.res)
	}
	return o, string(o.copy.body)
}

// Links held back are decided again when offered again, with no page
// rewritten before: a link the defences took as its page was rewritten
// stays taken though its URL pattern is capped since (traps.judge).
func TestHeldLinksDecidedAgain(t *testing.T) {
	const site = "http://site.test"
	e := slowEngine(t, site+"/", func(c *Config) { c.MaxNewPerHost, c.Traps.DateURLs = 1, 3 })
	cal := func(day string) string { return site + "/cal/2024-01-0" + day }
	o, _ := storeBody(t, e, site+"/", "", 0, `<a href="/cal/2024-01-01">1</a><a href="/cal/2024-01-02">2</a><a href="/cal/2024-01-03">3</a>`)
	if want := []list.Add{{URL: cal("1"), Level: 1}}; !slices.Equal(o.adds, want) {
		t.Fatalf("taken %v, want %v", o.adds, want)
	}
	held := o.rec.Held
	if len(held) != 2 {
		t.Fatalf("held %v, want days 2 and 3", held)
	}
	for _, day := range []string{"2", "3"} {
		e.links.reset() // forgotten: decided again when offered
		e.follow.newPass()
		o.adds = nil
		e.retakeHeld(o)
		if want := []list.Add{{URL: cal(day), Level: 1}}; !slices.Equal(o.adds, want) {
			t.Errorf("offered again: taken %v, want %v", o.adds, want)
		}
	}
	if len(o.rec.Held) != 0 {
		t.Errorf("still held: %v", o.rec.Held)
	}
	o, out := storeBody(t, e, site+"/x", "", 0, `<a href="/cal/2024-01-04">4</a><a href="/cal/2024-01-03">3</a>`)
	if want := []list.Add{{URL: cal("3"), Level: 1}}; !slices.Equal(o.adds, want) || !strings.Contains(out, `"`+cal("4")+`"`) {
		t.Errorf("capped pattern: taken %v, want %v; day 4 left absolute in\n%s", o.adds, want, out)
	}
}

// A link decided as its page was rewritten, before a start host joined
// the scope, is decided again when it is taken, as linkFiles would have
// it: links to the new host are followed from then on.
func TestLinkDecidedBeforeScopeWidened(t *testing.T) {
	const site = "http://site.test"
	e := slowEngine(t, site+"/", nil)
	links := []extract.Link{{URL: "http://b.test/p", Kind: extract.Page}}
	if got, _ := e.target(site+"/", "site.test/index.html")(links[0].URL, links[0].Kind); got != links[0].URL {
		t.Fatalf("link out of scope rewritten to %q", got)
	}
	e.widenScope("http://b.test/")
	en := list.Entry{URL: site + "/"}
	o := &outcome{job: job{en: en}, rec: &meta.Record{}}
	e.takeLinks(o, links, e.judgedLinks(links, true))
	if want := []list.Add{{URL: links[0].URL, Level: 1}}; !slices.Equal(o.adds, want) {
		t.Errorf("taken %v, want %v", o.adds, want)
	}
}
