package trap

import (
	"hash/maphash"
	"slices"
	"strings"
	"testing"
)

func TestMachinery(t *testing.T) {
	tests := []struct {
		url  string
		fam  Family
		sign string
	}{
		// MediaWiki.
		{"http://w.example/index.php?title=Main_Page&action=edit", Edit, "action=edit"},
		{"http://w.example/index.php?title=Main_Page&action=history", Edit, "action=history"},
		{"http://w.example/index.php?title=Main_Page&action=info", Edit, "action=info"},
		{"http://w.example/index.php?title=X&action=edit&redlink=1", Edit, "action=edit"},
		{"http://w.example/index.php?title=X&diff=12&oldid=11", Edit, "diff="},
		{"http://w.example/index.php?title=X&oldid=11", Edit, "oldid="},
		{"http://w.example/index.php?title=X&printable=yes", Edit, "printable="},
		{"http://w.example/index.php?title=Special:RecentChanges&days=30", Edit, "Special:"},
		{"http://w.example/index.php?title=Special%3ARandom", Edit, "Special:"},
		{"http://w.example/wiki/Special:WhatLinksHere/Foo", Edit, "Special:"},
		{"http://w.example/wiki/Special%3ASearch", Edit, "Special:"},
		{"http://w.example/api.php?action=rsd", Edit, "/api.php"},
		{"http://w.example/index.php?title=Special:UserLogin&returnto=X", Edit, "Special:"},
		{"http://w.example/index.php?title=X&feed=atom&action=history", Feeds, "feed="},
		// What spider followed on a real MediaWiki 1.39 ($wgScriptPath /w).
		{"http://w.example/w/index.php?title=Article_5&action=edit&section=2", Edit, "action=edit"},
		{"http://w.example/w/index.php?title=Special:CreateAccount&returnto=Article_5", Edit, "Special:"},
		{"http://w.example/w/index.php?title=Article_5&oldid=123", Edit, "oldid="},
		{"http://w.example/w/opensearch_desc.php", Edit, "/opensearch_desc.php"},
		{"http://w.example/w/load.php?lang=en&modules=skins.vector.styles.legacy&only=styles&skin=vector", "", ""},
		{"http://w.example/wiki/Talk:Article_5", "", ""},
		{"http://w.example/wiki/Category:Group_3", "", ""},
		// WordPress, phpBB, DokuWiki.
		{"http://b.example/2026/11/post/?replytocom=42", Edit, "replytocom="},
		{"http://b.example/wp-login.php?action=lostpassword", Accounts, "/wp-login.php"},
		{"http://b.example/wp-admin/post.php?post=1", Edit, "/wp-admin/"},
		{"http://b.example/wp-json/oembed/1.0/embed?url=x", Edit, "/wp-json/"},
		{"http://b.example/xmlrpc.php", Edit, "/xmlrpc.php"},
		{"http://w.example/opensearch_desc.php", Edit, "/opensearch_desc.php"},
		{"http://f.example/posting.php?mode=reply&t=1", Edit, "/posting.php"},
		{"http://f.example/ucp.php?mode=login", Accounts, "/ucp.php"},
		{"http://d.example/doku.php?id=start&do=revisions", Edit, "do=revisions"},
		// What spider followed on a real DokuWiki 2022-07-31: the sitemap
		// from every page (<link rel="contents">) and each page's plain
		// HTML export (<link rel="alternate" type="text/html">).
		{"http://d.example/doku.php?id=bench:page_5&do=index", Edit, "do=index"},
		{"http://d.example/doku.php?do=export_xhtml&id=bench:page_5", Edit, "do=export_xhtml"},
		{"http://d.example/doku.php?id=bench:page_5", "", ""},
		{"http://d.example/feed.php?mode=list&ns=bench", Feeds, "/feed.php"},
		// Its task runner image, on every page (302 of a 300-page wiki's
		// 728 lines, each view running the wiki's indexer).
		{"http://d.example/lib/exe/taskrunner.php?id=bench%3Apage_5", Beacons, "/taskrunner.php"},
		{"http://a.example/matomo.php?idsite=1&rec=1", Beacons, "/matomo.php"},
		{"http://a.example/stats/piwik.php?idsite=3", Beacons, "/piwik.php"},
		{"http://a.example/docs/taskrunner.php.html", "", ""},
		{"http://s.example/index.php?action=index", "", ""},
		// Feeds.
		{"http://b.example/feed/", Feeds, "/feed/"},
		{"http://b.example/comments/feed/", Feeds, "/feed/"},
		{"http://b.example/category/news/feed", Feeds, "/feed/"},
		{"http://b.example/news.rss", Feeds, ".rss"},
		{"http://b.example/blog/atom.xml", Feeds, "/atom.xml"},
		{"http://b.example/index.atom", Feeds, ".atom"},
		// cgit's feed of a repository, and of a path in it (which its
		// path does not tell).
		{"http://g.example/demo/atom/?h=main", Feeds, "/atom"},
		{"http://g.example/demo/atom/src/d1?h=main", "", ""},
		{"http://c.example/elements/atomic/", "", ""},
		{"http://b.example/?feed=rss2", Feeds, "feed="},
		{"http://b.example/list?type=rss", Feeds, "type=rss"},
		// Accounts.
		{"http://s.example/login?next=/x", Accounts, "/login"},
		{"http://s.example/user/logout", Accounts, "/logout"},
		{"http://s.example/register.php", Accounts, "/register.php"},
		{"http://s.example/signin.html", Accounts, "/signin.html"},
		{"http://s.example/login.jsf", Accounts, "/login.jsf"},
		{"http://s.example/secure/login.jspa", Accounts, "/login.jspa"},
		{"http://s.example/cgi-bin/login.py", Accounts, "/login.py"},
		{"http://s.example/register.do;jsessionid=abc", Accounts, "/register.do;jsessionid=abc"},
		{"http://d.example/doc/libidn2-dev/examples/register.c", "", ""}, // a source file
		{"http://d.example/files/login.pdf", "", ""},
		// Sort orders.
		{"http://s.example/dir/?C=N;O=D", Sort, "?C=…;O=…"},
		{"http://s.example/list?page=2&sort=date", Sort, "sort="},
		{"http://s.example/list?orderby=title&order=asc", Sort, "orderby="},
		// Not machinery.
		{"http://w.example/wiki/Main_Page", "", ""},
		{"http://w.example/index.php?title=Foo", "", ""},
		{"http://w.example/index.php/Talk:Foo", "", ""},
		{"http://w.example/load.php?modules=site.styles&only=styles", "", ""},
		{"http://b.example/about/history", "", ""},
		{"http://b.example/feeding-cats", "", ""},
		{"http://b.example/archive?page=7", "", ""},
		{"http://s.example/viewtopic.php?t=1&sid=12", "", ""},
		{"http://s.example/list?s=hello", "", ""},
		{"http://s.example/dir/?C=N;O=D;x=1", "", ""},
		{"http://s.example/catalog", "", ""},
		{"http://b.example/index.php?title=X&printable=no", "", ""},
	}
	for _, tt := range tests {
		f, sign := Machinery(tt.url)
		if f != tt.fam || sign != tt.sign {
			t.Errorf("Machinery(%s) = %q %q, want %q %q", tt.url, f, sign, tt.fam, tt.sign)
		}
	}
}

func TestStripSessions(t *testing.T) {
	const sid = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	for u, want := range map[string]string{
		"http://s.example/viewtopic.php?t=1&sid=" + sid:      "http://s.example/viewtopic.php?t=1",
		"http://s.example/viewtopic.php?sid=" + sid + "&t=1": "http://s.example/viewtopic.php?t=1",
		"http://s.example/index.php?sid=" + sid:              "http://s.example/index.php",
		"http://s.example/a;jsessionid=ABC123":               "http://s.example/a",
		"http://s.example/a;JSESSIONID=ABC123?x=1":           "http://s.example/a?x=1",
		"http://s.example/a?PHPSESSID=x1&b=2;c=3":            "http://s.example/a?b=2&c=3",
		"http://s.example/forum.php?s=" + sid + "&f=3":       "http://s.example/forum.php?f=3",
		"http://s.example/viewtopic.php?t=1&sid=12":          "http://s.example/viewtopic.php?t=1&sid=12",
		"http://s.example/search?s=hello+world":              "http://s.example/search?s=hello+world",
		"http://s.example/list?b=2;c=3":                      "http://s.example/list?b=2;c=3",
		"http://s.example/":                                  "http://s.example/",
		// Cache busters: a time stamp new for every page view.
		"http://d.example/lib/exe/taskrunner.php?id=start&1795874888": "http://d.example/lib/exe/taskrunner.php?id=start",
		"http://d.example/lib/exe/taskrunner.php?1795874888&id=start": "http://d.example/lib/exe/taskrunner.php?id=start",
		"http://s.example/api/list?q=x&_=1795874888123":               "http://s.example/api/list?q=x",
		"http://s.example/api/list?_=1795874888":                      "http://s.example/api/list",
		"http://s.example/article.php?1795874888":                     "http://s.example/article.php?1795874888",
		"http://s.example/a?id=x&999999999":                           "http://s.example/a?id=x&999999999",
		"http://s.example/a?id=x&4102444800":                          "http://s.example/a?id=x&4102444800",
		"http://s.example/a?id=x&17958748881":                         "http://s.example/a?id=x&17958748881",
		"http://s.example/a?id=x&t=1795874888":                        "http://s.example/a?id=x&t=1795874888",
		"http://s.example/a?id=x&_=abc":                               "http://s.example/a?id=x&_=abc",
	} {
		if got := StripSessions(u); got != want {
			t.Errorf("StripSessions(%s) = %s, want %s", u, got, want)
		}
	}
	if u := "http://s.example/a?PHPSESSID=x1"; (Config{Follow: []Family{Sessions}}).Strip(u) != u || (Config{}).Strip(u) != "http://s.example/a" {
		t.Error("Strip does not keep the session id when the family is followed, or keeps it when not")
	}
}

func TestVolatile(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{"http://d.example/lib/exe/taskrunner.php?id=start&1795874888", []string{"1795874888"}},
		{"http://s.example/a;jsessionid=ABC123?x=1&_=1795874888123", []string{";jsessionid=ABC123", "_=1795874888123"}},
		{"http://s.example/a?PHPSESSID=x1&b=2", []string{"PHPSESSID=x1"}},
		{"http://s.example/article.php?1795874888", nil},
		{"http://s.example/a?id=x&t=1795874888", nil},
		{"http://s.example/", nil},
	} {
		if got := Volatile(tt.url); !slices.Equal(got, tt.want) {
			t.Errorf("Volatile(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestCutFollow(t *testing.T) {
	c := Config{Follow: []Family{Feeds}}
	if f, _ := c.Cut("http://b.example/feed/"); f != "" {
		t.Errorf("feeds followed, yet cut as %q", f)
	}
	if f, _ := c.Cut("http://w.example/index.php?title=X&action=edit"); f != Edit {
		t.Errorf("edit not followed, yet cut as %q", f)
	}
	for _, f := range Families {
		if !Valid(string(f)) || f.Reason() == "" {
			t.Errorf("family %q: invalid or no reason", f)
		}
	}
	for u, want := range map[string]Family{
		"http://d.example/lib/exe/taskrunner.php?id=start":             Beacons,
		"http://w.example/load.php?modules=site.styles&only=styles":    "",
		"http://w.example/index.php?title=X&action=raw&ctype=text/css": "",
		"http://b.example/feed/":                                       "",
	} {
		if f, _ := c.CutRequisite(u); f != want {
			t.Errorf("CutRequisite(%s) = %q, want %q", u, f, want)
		}
	}
	if f, _ := (Config{Follow: []Family{Beacons}}).CutRequisite("http://d.example/lib/exe/taskrunner.php?id=start"); f != "" {
		t.Errorf("beacons followed, yet a requisite cut as %q", f)
	}
	if Valid("feed") {
		t.Error(`"feed" (singular) taken for a family`)
	}
}

func TestPattern(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://a.example/calendar/2026-11-21", "a.example/calendar/N-N-N"},
		{"http://a.example/archive?page=12", "a.example/archive?page=N"},
		{"http://a.example/cal?month=11&year=2026", "a.example/cal?month=N&year=N"},
		{"http://a.example/cal?year=2026&month=11", "a.example/cal?month=N&year=N"},
		{"http://a.example/index.php?title=Foo", "a.example/index.php?title=Foo"},
		{"http://a.example/index.php?title=Bar", "a.example/index.php?title=Bar"},
		{"http://A.example:8080/x2y/", "a.example:8080/xNy/"},
		{"http://a.example", "a.example/"},
		{"http://a.example/p#frag", "a.example/p"},
	}
	for _, tt := range tests {
		if got := Pattern(tt.url); got != tt.want {
			t.Errorf("Pattern(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestShape(t *testing.T) {
	tests := []struct{ url, path, shape string }{
		{"http://a.example/shop?color=red&size=m", "a.example/shop", "?color&size"},
		{"http://a.example/shop?size=l&color=blue", "a.example/shop", "?color&size"},
		{"http://a.example/shop/2?a=1&a=2", "a.example/shop/N", "?a&a"},
		{"http://a.example/shop", "a.example/shop", ""},
	}
	for _, tt := range tests {
		if p, s := Shape(tt.url); p != tt.path || s != tt.shape {
			t.Errorf("Shape(%s) = %q %q, want %q %q", tt.url, p, s, tt.path, tt.shape)
		}
	}
}

func TestDated(t *testing.T) {
	for u, want := range map[string]bool{
		"http://a.example/calendar/2026-11-21":       true,
		"http://a.example/calendar/2026-11":          true,
		"http://a.example/events/20261121":           true,
		"http://a.example/2026/11/21/":               true,
		"http://a.example/2026/11/a-post":            true,
		"http://a.example/cal?date=2026-11-21":       true,
		"http://a.example/cal?year=2026&month=11":    true,
		"http://a.example/cal?d=2026.11.21":          true,
		"http://a.example/archive?page=12":           false,
		"http://a.example/item/12345678":             false,
		"http://a.example/2026-report":               false,
		"http://a.example/2026/about":                false,
		"http://a.example/cal?year=last":             false,
		"http://a.example/v/2026-13-01":              false,
		"http://a.example/index.php?title=1999_song": false,
	} {
		if got := Dated(u); got != want {
			t.Errorf("Dated(%s) = %v, want %v", u, got, want)
		}
	}
}

func TestCapped(t *testing.T) {
	c := Config{SimilarPages: 50, DateURLs: 500, QueryShapes: 10}
	off := Config{}
	tests := []struct {
		name string
		c    Config
		n    Counts
		want string
	}{
		{"fresh", c, Counts{}, ""},
		{"distinct chain", c, Counts{URLs: 100_000, Pages: 99_999, Similar: 49}, ""},
		{"near-identical", c, Counts{URLs: 60, Pages: 55, Similar: 50}, ReasonSimilar},
		{"calendar under budget", c, Counts{URLs: 499, Dated: true}, ""},
		{"calendar at budget", c, Counts{URLs: 500, Dated: true}, ReasonDated},
		{"undated at 500", c, Counts{URLs: 500}, ""},
		{"off", off, Counts{URLs: 1e6, Similar: 1e6, Dated: true}, ""},
	}
	for _, tt := range tests {
		capped, why := tt.c.Capped(tt.n)
		if capped != (tt.want != "") || why != tt.want {
			t.Errorf("%s: Capped(%+v) = %v %q, want %q", tt.name, tt.n, capped, why, tt.want)
		}
	}
	if c.ShapeCapped(9) || !c.ShapeCapped(10) || off.ShapeCapped(1000) {
		t.Error("ShapeCapped: wrong at 9, 10 or off")
	}
}

func TestRepetitive(t *testing.T) {
	tests := []struct {
		novel, total int
		want         bool
	}{
		{0, 11, true}, {1, 11, false}, {0, 0, false}, {0, 2000, true}, {1, 2000, false},
	}
	for _, tt := range tests {
		if got := Repetitive(tt.novel, tt.total); got != tt.want {
			t.Errorf("Repetitive(%d, %d) = %v, want %v", tt.novel, tt.total, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	seed := maphash.MakeSeed()
	day := func(d string) []uint64 {
		body := `<!doctype html><title>Monday ` + d + ` January</title><a href="2026-01-0` + d + `">next day</a>`
		return Tokens(seed, "a.example/cal/N-N-N", []byte(body), []string{"http://a.example/cal/2026-01-0" + d, "http://a.example/"}, Pattern)
	}
	if a, b := day("2"), day("3"); !same(a, b) {
		t.Errorf("two calendar days differ in tokens: %v vs %v", a, b)
	}
	page := func(n, words string) []uint64 {
		return Tokens(seed, "a.example/archive?page=N", []byte("<p>"+words+"</p>"), []string{"http://a.example/archive?page=" + n, "http://a.example/item/" + n}, Pattern)
	}
	if same(page("1", "alpha beta"), page("2", "alpha beta")) {
		t.Error("pages linking distinct items have the same tokens")
	}
	if same(page("1", "river stone lantern harbour"), page("1", "harbour lantern stone river")) {
		t.Error("the same words in another order have the same tokens")
	}
	if n := len(Tokens(seed, "p", []byte("a A a "+strings.Repeat("x", 41)+" b2b"), nil, Pattern)); n != 3 {
		t.Errorf("%d tokens, want 3 (a a a, a a b, a b b; a word over 40 letters dropped)", n)
	}
	if n := len(Tokens(seed, "p", []byte("<p>hi</p>"), nil, Pattern)); n != 1 {
		t.Errorf("%d tokens of a two-word page, want 1", n)
	}
	if toks := Tokens(seed, "p", []byte("a a a a"), nil, Pattern); len(toks) != 2 || toks[0] != toks[1] {
		t.Errorf("tokens of a page saying a a a a: %v, want the one run of three words twice", toks)
	}
}

func same(a, b []uint64) bool {
	m := map[uint64]bool{}
	for _, k := range a {
		m[k] = true
	}
	for _, k := range b {
		if !m[k] {
			return false
		}
	}
	return len(a) == len(b)
}

// FuzzURL checks that no URL makes the rules panic, that a pattern never
// holds a digit past its host, and that machinery always has a sign.
func FuzzURL(f *testing.F) {
	f.Add("http://a.example/index.php?title=X&action=edit")
	f.Add("http://a.example/2026/11/21/?C=N;O=D")
	f.Add("https://a.example/%zz;jsessionid=?&&=;")
	f.Add("x")
	f.Add("http://d.example/lib/exe/taskrunner.php?id=start&1795874888")
	f.Add("http://s.example/a?1795874888&_=1795874888123;sid=9f8e7d6c5b4a39281706f5e4d3c2b1a0")
	f.Fuzz(func(t *testing.T, u string) {
		if fam, sign := Machinery(u); fam != "" && sign == "" {
			t.Fatalf("Machinery(%q) = %q without a sign", u, fam)
		}
		if _, rest, _ := strings.Cut(Pattern(u), "/"); strings.ContainsAny(rest, "0123456789") {
			t.Fatalf("Pattern(%q) = %q holds a digit past its host", u, Pattern(u))
		}
		Dated(u)
		Shape(u)
		s := StripSessions(u)
		if len(s) > len(u) || StripSessions(s) != s {
			t.Fatalf("StripSessions(%q) = %q: longer, or not stable", u, s)
		}
		parts := Volatile(u)
		for _, p := range parts {
			if p == "" || !strings.Contains(u, p) {
				t.Fatalf("Volatile(%q) = %q: not parts of it", u, parts)
			}
		}
		if (len(parts) > 0) != (s != u) && !strings.Contains(u, "#") {
			t.Fatalf("Volatile(%q) = %q, but StripSessions gives %q", u, parts, s)
		}
	})
}
