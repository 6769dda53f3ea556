package robots

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

const sample = `# a site
User-agent: *
Disallow: /private/
Disallow: /*.cgi$
Allow: /private/open
Crawl-delay: 2

User-agent: spider
User-agent: other
Disallow: /nospider
Allow: /page
Disallow: /page
Crawl-delay: 0.5

User-agent: my
Disallow: /
`

func TestAllowed(t *testing.T) {
	star := Parse([]byte(sample), "somebot")
	sp := Parse([]byte(sample), "spider")
	tests := []struct {
		r    *Rules
		url  string
		want bool
	}{
		{star, "http://h/", true},
		{star, "http://h/private/x", false},
		{star, "http://h/private/open/x", true}, // longer Allow wins
		{star, "http://h/a/b.cgi", false},
		{star, "http://h/a/b.cgi?x=1", true}, // $ anchors the whole path+query
		{star, "http://h/nospider", true},
		{sp, "http://h/nospider", false},
		{sp, "http://h/private/x", true},                     // the specific group replaces "*"
		{sp, "http://h/page", true},                          // Allow wins an equal-length tie (RFC 9309)
		{Parse([]byte(sample), "myBot"), "http://h/x", true}, // "my" does not apply to myBot
		{Parse([]byte(sample), "MY"), "http://h/x", false},   // case-insensitive product token
		{Parse([]byte("User-agent: *\nDisallow: /\n"), "spider"), "http://h/robots.txt", true},
		{Parse([]byte("User-agent: *\nDisallow: /~joe\n"), "spider"), "http://h/%7Ejoe/", false},
		{Parse([]byte("User-agent: *\nDisallow: /%7ejoe\n"), "spider"), "http://h/~joe/", false},
		{Parse([]byte("User-agent: *\nDisallow: /ä\n"), "spider"), "http://h/%C3%A4", false},
		{Parse([]byte("User-agent: *\nDisallow: /a?b\n"), "spider"), "http://h/a?b=1", false},
		{Parse(nil, "spider"), "http://h/anything", true},
		{AllowAll(404), "http://h/x", true},
		{DisallowAll(), "http://h/x", false},
		{DisallowAll(), "http://h/robots.txt", true},
		{star, "http://h/%zz", false}, // unparsable: not allowed
		{Parse([]byte("User-agent: *\nDisallow:\n"), "spider"), "http://h/x", true},
		{Parse([]byte("User-agent: *\nDisallow:\nAllow: /a\n\nUser-agent: spider\nDisallow: /x\n"), "spider"), "http://h/x", false},
		{Parse([]byte("Disallow: /x\nUser-agent: *\nDisallow:\n"), "spider"), "http://h/x", true}, // a rule before any group applies to none
	}
	for _, tt := range tests {
		if got := tt.r.Allowed(tt.url); got != tt.want {
			t.Errorf("agent %q: Allowed(%s) = %v, want %v", tt.r.agent, tt.url, got, tt.want)
		}
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		body, agent string
		want        time.Duration
	}{
		{sample, "spider", 500 * time.Millisecond},
		{sample, "other", 500 * time.Millisecond},
		{sample, "somebot", 2 * time.Second},
		{sample, "my", 2 * time.Second}, // its group has none: falls back to "*"
		{"User-agent: *\nCrawl-delay: 10\n", "spider", 10 * time.Second},
		{"User-agent: *\ncrawl-delay: 3\ncrawl-delay: 7\n", "spider", 3 * time.Second},
		{"User-agent: *\nCrawl-delay: 1e9\n", "spider", 0},  // not a plain number
		{"User-agent: *\nCrawl-delay: -1\n", "spider", 0},   // negative
		{"User-agent: *\nCrawl-delay: soon\n", "spider", 0}, // junk
		{"User-agent: *\nCrawl-delay: 86400\n", "spider", MaxCrawlDelay},
		{"Crawl-delay: 5\nUser-agent: *\nDisallow: /\n", "spider", 0}, // outside any group
		{"User-agent: a\nDisallow: /\nUser-agent: spider\nCrawl-delay: 4\n", "spider", 4 * time.Second},
		{"User-agent: spider\nDisallow: /x\nUser-agent: b\nCrawl-delay: 4\n", "spider", 0}, // b's group, not ours
		{"", "spider", 0},
	}
	for _, tt := range tests {
		if got := CrawlDelay(tt.body, tt.agent); got != tt.want {
			t.Errorf("CrawlDelay(%q, %q) = %v, want %v", tt.body, tt.agent, got, tt.want)
		}
	}
}

func TestToken(t *testing.T) {
	for in, want := range map[string]string{
		"spider/1.2 (+https://github.com/spider-mirror/spider; fast)": "spider",
		"Mozilla/5.0": "Mozilla",
		"my_bot-2":    "my_bot-2",
		"":            "",
	} {
		if got := Token(in); got != want {
			t.Errorf("Token(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizePath(t *testing.T) {
	for in, want := range map[string]string{
		"/%7efoo":    "/~foo",
		"/%41%2f%2F": "/A%2F%2F",
		"/%c3%a4":    "/%C3%A4",
		"/plain":     "/plain",
		"/bad%":      "/bad%",
		"/bad%4":     "/bad%4",
		"/%zz":       "/%zz",
		"/end%2d":    "/end-",
	} {
		if got := NormalizePath(in); got != want {
			t.Errorf("NormalizePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCrawlDelay feeds arbitrary robots.txt bodies to the Crawl-delay
// handler: it must not panic and must stay within [0, MaxCrawlDelay].
func FuzzCrawlDelay(f *testing.F) {
	f.Add(sample, "spider")
	f.Add("User-agent: *\nCrawl-delay: 1.5\n", "x")
	f.Add("User-agent: *\r\nCrawl-delay:\t99999999999999999999\r\n", "spider")
	f.Add("\xff\xfeUser-agent: *\x00\nCrawl-delay: .\n", "")
	f.Fuzz(func(t *testing.T, body, agent string) {
		d := CrawlDelay(body, agent)
		if d < 0 || d > MaxCrawlDelay {
			t.Fatalf("CrawlDelay = %v, outside [0, %v]", d, MaxCrawlDelay)
		}
		r := Parse([]byte(body), Token(agent))
		if !r.Allowed("http://h/robots.txt") {
			t.Fatal("/robots.txt disallowed")
		}
	})
}

// A robots.txt whose Disallow lines are all empty allows everything, and
// its rules are not matched against each URL; one that disallows anything
// anywhere is matched.
func TestAllowsAllWithoutMatching(t *testing.T) {
	for _, tt := range []struct {
		body  string
		match bool
	}{
		{"User-agent: *\nDisallow:\n", false},
		{"User-agent: *\nAllow: /\nCrawl-delay: 1\n", false},
		{"# nothing\n", false},
		{"User-agent: other\nDisallow: /\n", true},
		{"User-agent: *\nDisallow: /private/\n", true},
	} {
		if r := Parse([]byte(tt.body), "spider"); (r.body != "") != tt.match {
			t.Errorf("%q: matched per URL %v, want %v", tt.body, r.body != "", tt.match)
		}
	}
}

func TestSitemaps(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"none", "User-agent: *\nDisallow:\n", nil},
		{"outside groups and in them, allow-all file", "Sitemap: https://a.example/s1.xml\nUser-agent: *\nDisallow:\nsitemap: http://a.example/s2.xml.gz\n",
			[]string{"https://a.example/s1.xml", "http://a.example/s2.xml.gz"}},
		{"with disallow rules", "User-agent: *\nDisallow: /x\nSitemap: https://a.example/s.xml\n", []string{"https://a.example/s.xml"}},
		{"relative and other schemes ignored", "Sitemap: /s.xml\nSitemap: ftp://a.example/s.xml\nSitemap: https://a.example/ok.xml\n",
			[]string{"https://a.example/ok.xml"}},
		{"each once", "Sitemap: https://a.example/s.xml\nSitemap: https://a.example/s.xml\n", []string{"https://a.example/s.xml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse([]byte(tt.body), "spider").Sitemaps
			if !slices.Equal(got, tt.want) {
				t.Errorf("Sitemaps = %q, want %q", got, tt.want)
			}
		})
	}
	var b strings.Builder
	for i := range MaxSitemaps + 10 {
		fmt.Fprintf(&b, "Sitemap: https://a.example/s%d.xml\n", i)
	}
	if n := len(Parse([]byte(b.String()), "spider").Sitemaps); n != MaxSitemaps {
		t.Errorf("%d Sitemap lines kept, want the cap %d", n, MaxSitemaps)
	}
}
