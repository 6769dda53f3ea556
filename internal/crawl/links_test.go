package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/list"
)

// A link's file is remembered per kind and per side of the scope of the
// page it is on, and forgotten when a start host joins the scope: links
// to it are then rewritten into the mirror.
func TestTargetRemembers(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 1, Now: func() time.Time { return v.clock }},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	host := strings.TrimPrefix(v.base, "http://")
	in := e.target(v.base+"/t/1", host+"/t/1.html")
	out := e.target("http://other.example/x", "other.example/x.html")
	for range 2 { // the second round is answered from memory
		for _, tt := range []struct {
			target rewrite.Target
			url    string
			kind   extract.Kind
			want   string
		}{
			{in, v.base + "/t/2", extract.Page, "2%7B%7D.html"},
			{in, v.base + "/s.css", extract.Style, "../s.css"},
			{in, v.base + "/t/style", extract.Style, "style%7B%7D.css"},
			{in, v.base + "/t/style", extract.Page, "style%7B%7D.html"},
			{in, "http://other.example/p", extract.Page, "http://other.example/p"},
			{out, v.base + "/t/2", extract.Page, "../" + host + "/t/2%7B%7D.html"},
			{out, "http://other.example/p", extract.Page, "http://other.example/p"},
		} {
			if got, ok := tt.target(tt.url, tt.kind); !ok || got != tt.want {
				t.Errorf("link %s (%v): %q, %v; want %q", tt.url, tt.kind, got, ok, tt.want)
			}
		}
	}
	e.widenScope("http://other.example/")
	if got, _ := in("http://other.example/p", extract.Page); got != "../../other.example/p%7B%7D.html" {
		t.Errorf("link to a host that joined the scope: %q, want it rewritten to its file", got)
	}
}

func TestLinkFilesGenerations(t *testing.T) {
	var c linkFiles
	k := linkKey{"http://h/a", extract.Page, true}
	_, gen, ok := c.get(k)
	if ok {
		t.Fatal("remembered before put")
	}
	c.reset() // the scope changed while the link was decided
	c.put(k, linkFile{file: "h/a.html", ok: true}, gen)
	if _, _, ok := c.get(k); ok {
		t.Fatal("a decision from before a reset was remembered")
	}
	_, gen, _ = c.get(k)
	c.put(k, linkFile{file: "h/a.html", ok: true}, gen)
	if f, _, ok := c.get(k); !ok || f.file != "h/a.html" || !f.ok {
		t.Fatalf("get after put: %+v, %v", f, ok)
	}
	for i := range maxLinkFiles + 1 {
		_, gen, _ := c.get(k)
		c.put(linkKey{fmt.Sprint("http://h/", i), extract.Page, true}, linkFile{}, gen)
	}
	n := 0
	c.m.Range(func(any, any) bool { n++; return true })
	if n > maxLinkFiles {
		t.Fatalf("%d links remembered, want at most %d", n, maxLinkFiles)
	}
}

// Once the spider knows where a URL's copy is (its fetch or its line, as
// the group commit sees them), links to it lead there, not to the name
// its extension made linkname guess; a file of an earlier layout is not
// taken for its copy.
func TestTargetKnowsCopies(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 1, Now: func() time.Time { return v.clock }},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	host := strings.TrimPrefix(v.base, "http://")
	page := e.target(v.base+"/", host+"/index.html")
	link := func(p string) string {
		got, _ := page(v.base+p, extract.Page)
		return got
	}
	if got := link("/dl"); got != "dl%7B%7D.html" {
		t.Fatalf("link to /dl before its fetch: %q", got)
	}
	fetched := &outcome{res: list.Result{URL: v.base + "/dl", State: list.Downloaded, File: host + "/dl{}"}}
	claimed := &outcome{job: job{en: list.Entry{URL: v.base + "/nul.txt", File: host + "/nul.txt{}.html"}},
		res: list.Result{URL: v.base + "/nul.txt", State: list.Error}}
	old := &outcome{job: job{en: list.Entry{URL: v.base + "/old", File: host + "/old.html"}},
		res: list.Result{URL: v.base + "/old", State: list.Error}}
	e.commit([]*outcome{fetched, claimed, old})
	for p, want := range map[string]string{"/dl": "dl%7B%7D", "/nul.txt": "nul.txt%7B%7D.html", "/old": "old%7B%7D.html"} {
		if got := link(p); got != want {
			t.Errorf("link to %s: %q, want %q", p, got, want)
		}
	}
}

// A line whose file is a name of an earlier layout (/a as a page was
// a.html) is fetched without a conditional request, and a forwarding one
// follows its redirect, so that its copy is written under its name now; a
// line at its own name keeps it.
func TestConditionalAfterLayoutChange(t *testing.T) {
	v := newEnv(t)
	e := New(Config{Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 1, Now: func() time.Time { return v.clock }},
		v.list, v.m, fetch.New(fetch.Options{UserAgent: "test"}))
	host := strings.TrimPrefix(v.base, "http://")
	rec := meta.Record{ETag: `"1"`}
	for _, tt := range []struct {
		file string
		want bool
	}{
		{host + "/a.html", false},
		{host + "/a{}.html", true},
		{host + "/a{}", true},
	} {
		if err := v.m.Write(tt.file, []byte("copy")); err != nil {
			t.Fatal(err)
		}
		en := list.Entry{URL: v.base + "/a", File: tt.file, State: list.Downloaded}
		if got := e.conditional(en, rec) != nil; got != tt.want {
			t.Errorf("line with file %s: conditional %v, want %v", tt.file, got, tt.want)
		}
		// A copy that forwards where the URL redirects is kept while the
		// redirect stays, but not under an earlier layout's name: there
		// the redirect is followed and the forwarding page written anew.
		fwd := meta.Record{Forwards: true, RedirectTo: v.base + "/b"}
		want := ""
		if tt.want {
			want = fwd.RedirectTo
		}
		if got := e.forwardsTo(en, fwd); got != want {
			t.Errorf("forwarding line with file %s: kept while it redirects to %q, want %q", tt.file, got, want)
		}
	}
}

// A page's links to hosts with different robots.txt rules are each
// rewritten under their own host's rules, as the page goes from one host
// to the other and back.
func TestTargetRobotsPerHost(t *testing.T) {
	robotsSite := func(disallow string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				fmt.Fprintf(w, "User-agent: *\nDisallow: %s\n", disallow)
				return
			}
			http.NotFound(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	a, b := robotsSite("/private"), robotsSite("/other")
	e := slowEngine(t, a.URL+"/", func(c *Config) { c.Hosts = []string{hostOf(a.URL), hostOf(b.URL)} })
	for _, s := range []*httptest.Server{a, b} {
		if _, _, err := e.robotsCache().Rules(context.Background(), s.URL); err != nil {
			t.Fatal(err)
		}
	}
	target := e.target(a.URL+"/", hostOf(a.URL)+"/index.html")
	for _, tt := range []struct {
		url      string
		mirrored bool
	}{
		{a.URL + "/private/1", false},
		{b.URL + "/private/1", true},
		{b.URL + "/other/1", false},
		{a.URL + "/private/2", false},
		{a.URL + "/other/2", true},
	} {
		got, _ := target(tt.url, extract.Page)
		if mirrored := got != tt.url; mirrored != tt.mirrored {
			t.Errorf("link %s rewritten to %q: mirrored %v, want %v", tt.url, got, mirrored, tt.mirrored)
		}
	}
}
