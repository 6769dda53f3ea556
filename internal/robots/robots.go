// Package robots decides, per host, whether spider may fetch a URL: it
// parses robots.txt with github.com/jimsmart/grobotstxt (a port of Google's
// matcher, which RFC 9309 standardised) and caches each host's answer.
//
// The package does no network I/O of its own: a Cache is given a Fetch
// function (wired by internal/crawl to the shared HTTP client, after the
// host's politeness slot). The policy of RFC 9309 §2.3–2.4 is applied to
// what Fetch returns:
//
//   - 2xx: the body (its first MaxBody bytes) is parsed;
//   - 4xx (401 and 403 included): no rules, everything is allowed;
//   - 5xx, a network error or timeout, or a redirect loop: the site is
//     unreachable and everything is disallowed for now, until the entry
//     expires (FailTTL, shorter than TTL) and robots.txt is asked again;
//   - an answer is cached per scheme+host for at most TTL (24 h);
//   - /robots.txt itself is always allowed.
//
// Matching uses the product token of the user agent ("spider", not
// "spider/1.2 (+https://...)"), and the path is normalised first: percent
// escapes of unreserved characters are decoded ("%7E" is "~"), as the
// matcher leaves that to its caller.
//
// Crawl-delay, which grobotstxt ignores, is read by a ParseHandler of our
// own: the delay of the group naming the agent, else of the "*" group,
// capped at MaxCrawlDelay.
//
// Sitemap lines, which belong to no group, are kept as Rules.Sitemaps for
// the crawl to read (internal/crawl/sitemaps.go).
//
// A Cache is safe for concurrent use. At most one fetch per host is in
// flight at a time (singleflight); callers asking for the same host wait
// for it and share its answer.
package robots

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jimsmart/grobotstxt"
)

// MaxBody is how much of a robots.txt is parsed; RFC 9309 asks for at
// least 500 KiB. The rest is ignored.
const MaxBody = 512 << 10

// MaxCrawlDelay caps a Crawl-delay: a robots.txt asking for more gets this.
const MaxCrawlDelay = 2 * time.Minute

// Rules are one host's robots.txt as it applies to one agent. The zero
// value allows everything.
type Rules struct {
	body       string // "" with disallowAll false: allow all
	agent      string // product token
	all        bool   // disallow everything (robots.txt unreachable)
	CrawlDelay time.Duration
	Status     int // HTTP status robots.txt was answered with; 0 if unreachable
	// Sitemaps are the absolute http(s) URLs of its Sitemap lines, which
	// apply to every agent, in file order, each once, at most
	// MaxSitemaps of them.
	Sitemaps []string
}

// MaxSitemaps caps the Sitemap lines of one robots.txt that are kept.
const MaxSitemaps = 100

// AllowAll is the rule set of a host without a robots.txt.
func AllowAll(status int) *Rules { return &Rules{Status: status} }

// DisallowAll is the rule set of a host whose robots.txt is unreachable.
func DisallowAll() *Rules { return &Rules{all: true} }

// Parse returns the rules of robots.txt body for the agent whose product
// token is agent (see Token).
func Parse(body []byte, agent string) *Rules {
	if len(body) > MaxBody {
		body = body[:MaxBody]
	}
	r := &Rules{body: normalizeBody(string(body)), agent: agent, Status: 200}
	r.CrawlDelay = CrawlDelay(r.body, agent)
	var found bool
	found, r.Sitemaps = scan(r.body)
	if !found {
		r.body = "" // allows everything: Allowed need not match each URL
	}
	return r
}

// scanner is a grobotstxt.ParseHandler that looks for a Disallow line
// with a value, and collects the Sitemap lines. A robots.txt without such
// a Disallow line allows every URL to every agent (an empty Disallow
// allows everything), whatever its groups say, and most sites' robots.txt
// forbid nothing ("User-agent: *" and "Disallow:").
type scanner struct {
	found    bool
	sitemaps []string
}

// scan reports whether body has a Disallow line with a value, and returns
// its sitemaps (see Rules.Sitemaps).
func scan(body string) (disallows bool, sitemaps []string) {
	var d scanner
	grobotstxt.Parse(body, &d)
	return d.found, d.sitemaps
}

func (d *scanner) HandleRobotsStart()                      {}
func (d *scanner) HandleRobotsEnd()                        {}
func (d *scanner) HandleUserAgent(int, string)             {}
func (d *scanner) HandleAllow(int, string)                 {}
func (d *scanner) HandleDisallow(_ int, value string)      { d.found = d.found || value != "" }
func (d *scanner) HandleUnknownAction(int, string, string) {}

// HandleSitemap keeps an absolute http(s) URL; the protocol asks for
// one, so a relative value is ignored rather than guessed at.
func (d *scanner) HandleSitemap(_ int, value string) {
	if len(d.sitemaps) >= MaxSitemaps {
		return
	}
	u, err := url.Parse(strings.TrimSpace(value))
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return
	}
	s := u.String()
	if !slices.Contains(d.sitemaps, s) {
		d.sitemaps = append(d.sitemaps, s)
	}
}

// DisallowsAll reports whether r forbids every URL (unreachable robots.txt).
func (r *Rules) DisallowsAll() bool { return r.all }

// Allowed reports whether the URL rawURL may be fetched.
func (r *Rules) Allowed(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	p := u.EscapedPath()
	if p == "/robots.txt" {
		return true
	}
	if r.all {
		return false
	}
	if r.body == "" {
		return true
	}
	if p == "" {
		p = "/"
	}
	p = NormalizePath(p)
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + NormalizePath(u.RawQuery)
	}
	return grobotstxt.AgentAllowed(r.body, r.agent, p)
}

// Token returns the product token of a User-Agent header: "spider" for
// "spider/1.2 (+https://...)". Robots groups are matched against it.
func Token(userAgent string) string {
	i := 0
	for ; i < len(userAgent); i++ {
		c := userAgent[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			break
		}
	}
	return userAgent[:i]
}

// NormalizePath decodes percent escapes of unreserved characters
// (ALPHA, DIGIT, "-", ".", "_", "~") and upper-cases the hex digits of the
// others, so "/%7efoo" and "/~foo" match the same rules.
func NormalizePath(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) && ishex(p[i+1]) && ishex(p[i+2]) {
			c := unhex(p[i+1])<<4 | unhex(p[i+2])
			if unreserved(c) {
				b.WriteByte(c)
			} else {
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(p[i+1 : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func ishex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// normalizeBody applies NormalizePath to the value of every Allow and
// Disallow line, so patterns and paths meet in one spelling ("/%7ejoe"
// and "/~joe" both become "/~joe").
func normalizeBody(body string) string {
	if !strings.Contains(body, "%") {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		k, v, ok := strings.Cut(l, ":")
		if !ok || !strings.Contains(v, "%") {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "allow", "disallow":
			lines[i] = k + ":" + NormalizePath(v)
		}
	}
	return strings.Join(lines, "")
}
