// Package scope decides which links a spider follows: pure functions of a
// link, the page it was found on and the configured rules, with no I/O, so
// the policy reads and tests as tables.
//
// A link is followed when it passes every limit (Limits: scheme, length,
// level, repeated path segments, private addresses) and is in scope:
//
//   - its host is one of Hosts (the start URLs' hosts and the configured
//     extra ones), or it is a page requisite (image, stylesheet, script,
//     frame) of an in-scope page and Requisites is on: a browsable mirror
//     needs those wherever they are hosted;
//   - it matches an Include pattern, if any are given (a requisite of an
//     in-scope page need not: Include picks the pages, and a page it
//     picks is mirrored with what it needs to display);
//   - it matches no Exclude pattern, and no CGI pattern (SkipCGI).
//
// Patterns are Go regular expressions (regexp, RE2: linear time, no
// backtracking) matched against the canonical URL; they are unanchored,
// so "/calendar/" matches anywhere and "^https://a\.example/" anchors.
//
// Rules are read-only after New and safe for concurrent use.
package scope

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// Limits bound what a link may look like, against spider traps and hostile
// pages. Zero fields take the defaults.
type Limits struct {
	MaxURLLen int // bytes of the canonical URL; default 2048
	MaxLevel  int // link distance from a start URL; default 100,000 (a forum paginated prev/next has a level per index page: 5,002 levels at 50,000 topics)
	MaxRepeat int // times one path segment, or pair of segments, may repeat in a row; default 2 (so /a/a/a and /a/b/a/b/a/b are refused)
	// MaxSegments bounds the segments of a path (Heritrix's
	// TooManyPathSegmentsDecideRule): a path that keeps growing with new
	// names each time, which MaxRepeat does not catch; default 20.
	MaxSegments int
}

// Defaults of zero Limits fields.
const (
	DefaultMaxURLLen   = 2048
	DefaultMaxLevel    = 100_000
	DefaultMaxRepeat   = 2
	DefaultMaxSegments = 20
)

// Config is what New compiles.
type Config struct {
	Hosts      []string // host[:port]s in scope
	Include    []string // regexps; a link must match one, if any are given
	Exclude    []string // regexps; a link matching one is not followed
	SkipCGI    bool     // skip URLs that look like CGI scripts (CGIPatterns)
	Requisites bool     // follow requisites of in-scope pages to any host
	// AllowLoopback and AllowPrivate follow links to loopback addresses
	// (127/8, ::1, localhost) and to private ones (10/8, 172.16/12,
	// 192.168/16, fc00::/7, 100.64/10). The caller sets them when a start
	// URL is on such an address (a test site, an intranet mirror; see
	// Class); otherwise a public page cannot send the spider into the
	// local network. Link-local and unspecified addresses (169.254/16,
	// the cloud metadata service; 0.0.0.0) are never followed.
	AllowLoopback, AllowPrivate bool
	Limits                      Limits
}

// CGIPatterns are the default "looks like CGI" patterns of SkipCGI: a
// cgi-bin directory, or a .cgi or .pl script.
var CGIPatterns = []string{`/cgi-bin/`, `\.(cgi|pl)(\?|$)`}

// Rules are compiled Config.
type Rules struct {
	hosts      map[string]bool
	include    []*regexp.Regexp
	exclude    []*regexp.Regexp
	requisites bool
	loopback   bool
	private    bool
	lim        Limits
}

// New compiles c. An invalid pattern is an error naming it.
func New(c Config) (*Rules, error) {
	r := &Rules{hosts: map[string]bool{}, requisites: c.Requisites, loopback: c.AllowLoopback, private: c.AllowPrivate, lim: c.Limits}
	for _, h := range c.Hosts {
		r.hosts[strings.ToLower(h)] = true
	}
	var err error
	if r.include, err = compile("include", c.Include); err != nil {
		return nil, err
	}
	if r.exclude, err = compile("exclude", c.Exclude); err != nil {
		return nil, err
	}
	if c.SkipCGI {
		cgi, _ := compile("cgi", CGIPatterns)
		r.exclude = append(r.exclude, cgi...)
	}
	if r.lim.MaxURLLen <= 0 {
		r.lim.MaxURLLen = DefaultMaxURLLen
	}
	if r.lim.MaxLevel <= 0 {
		r.lim.MaxLevel = DefaultMaxLevel
	}
	if r.lim.MaxRepeat <= 0 {
		r.lim.MaxRepeat = DefaultMaxRepeat
	}
	if r.lim.MaxSegments <= 0 {
		r.lim.MaxSegments = DefaultMaxSegments
	}
	return r, nil
}

func compile(what string, pats []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("scope: %s pattern %q: %v", what, p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// AddHost puts host in scope; it returns a copy of r, which stays as it was.
func (r *Rules) AddHost(host string) *Rules {
	c := *r
	c.hosts = make(map[string]bool, len(r.hosts)+1)
	for h := range r.hosts {
		c.hosts[h] = true
	}
	c.hosts[strings.ToLower(host)] = true
	return &c
}

// InScope reports whether u's host is one of the hosts in scope.
func (r *Rules) InScope(u string) bool { return r.hosts[strings.ToLower(hostOf(u))] }

// Link is a link as Follow judges it.
type Link struct {
	URL       string // canonical absolute URL
	Level     int    // the level its line would get: the page's level + 1
	Requisite bool   // an image, stylesheet, script or frame of the page
}

// Follow reports whether the link l, found on page from (a canonical URL),
// is to be added to the list, and if not, why (a short reason for the
// log: "scheme", "url too long", "too deep", "repeated segments",
// "too many segments",
// "private address", "out of scope", "not included", "excluded").
func (r *Rules) Follow(from string, l Link) (ok bool, reason string) {
	return r.FollowIn(r.InScope(from), r.InScope(l.URL), l)
}

// FollowIn is Follow for a caller that keeps the hosts in scope itself:
// fromIn and toIn say whether the page's and the link's hosts are in scope.
func (r *Rules) FollowIn(fromIn, toIn bool, l Link) (ok bool, reason string) {
	if why := r.Check(l.URL, l.Level); why != "" {
		return false, why
	}
	if !toIn && !(l.Requisite && r.requisites && fromIn) {
		return false, "out of scope"
	}
	return r.patterns(l.URL, l.Requisite && fromIn)
}

// TooDeep reports whether a link at level is past the level limit: the
// one limit of Check that depends on the level, so that a caller may
// check the rest once for a link found at several levels.
func (r *Rules) TooDeep(level int) bool { return level > r.lim.MaxLevel }

// Check applies the limits to u at level, whatever its host: "" if it
// passes, else the reason.
func (r *Rules) Check(u string, level int) string {
	scheme, rest, ok := strings.Cut(u, "://")
	switch {
	case !ok || scheme != "http" && scheme != "https":
		return "scheme"
	case len(u) > r.lim.MaxURLLen:
		return "url too long"
	case r.TooDeep(level):
		return "too deep"
	case Repeats(pathOf(rest)) > r.lim.MaxRepeat:
		return "repeated segments"
	case Segments(pathOf(rest)) > r.lim.MaxSegments:
		return "too many segments"
	}
	switch Class(hostOf(u)) {
	case Loopback:
		if !r.loopback {
			return "private address"
		}
	case PrivateNet:
		if !r.private {
			return "private address"
		}
	case LinkLocal:
		return "private address"
	}
	return ""
}

func (r *Rules) patterns(u string, requisite bool) (bool, string) {
	if len(r.include) > 0 && !requisite {
		in := false
		for _, re := range r.include {
			if re.MatchString(u) {
				in = true
				break
			}
		}
		if !in {
			return false, "not included"
		}
	}
	for _, re := range r.exclude {
		if re.MatchString(u) {
			return false, "excluded"
		}
	}
	return true, ""
}

// Repeats returns how many times in a row the most repeated run of one or
// two path segments occurs in path: 1 for "/a/b/c", 3 for "/a/a/a/x" and
// for "/x/a/b/a/b/a/b". Empty segments ("//") count as segments.
func Repeats(path string) int {
	var buf [32]string // most paths: no allocation
	segs := buf[:0]
	for s := range strings.SplitSeq(strings.Trim(path, "/"), "/") {
		segs = append(segs, s)
	}
	best := 1
	for width := 1; width <= 2; width++ {
		for i := 0; i+width <= len(segs); i++ {
			n := 1
			for j := i + width; j+width <= len(segs) && same(segs[i:i+width], segs[j:j+width]); j += width {
				n++
			}
			best = max(best, n)
		}
	}
	return best
}

// Segments returns the number of segments of path: 0 for "/", 2 for
// "/a/b" and for "/a/b/".
func Segments(path string) int {
	p := strings.Trim(path, "/")
	if p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}

func same(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// AddrClass is the kind of address a host names.
type AddrClass int

// The address classes; Public covers every name that is not "localhost".
const (
	Public     AddrClass = iota
	Loopback             // 127/8, ::1, localhost
	PrivateNet           // 10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10
	LinkLocal            // 169.254/16, fe80::/10, 0/8, unspecified, multicast link-local
)

// Private reports whether host (host[:port], as in a canonical URL) is a
// loopback, private, link-local or unspecified address, or "localhost".
// Names are not resolved: a public name that resolves to a private
// address is not caught here.
func Private(host string) bool { return Class(host) != Public }

// Class returns the kind of address host (host[:port]) is.
func Class(host string) AddrClass {
	h := host
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			h = h[1:i]
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return Loopback
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return Public
	}
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return Loopback
	case a.IsPrivate() || a.Is4() && a.As4()[0] == 100 && a.As4()[1]&0xc0 == 64: // 100.64.0.0/10, carrier-grade NAT
		return PrivateNet
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() ||
		a.Is4() && a.As4()[0] == 0: // 0.0.0.0/8
		return LinkLocal
	}
	return Public
}

func hostOf(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}

func pathOf(rest string) string {
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "/"
	}
	p := rest[i:]
	if j := strings.IndexAny(p, "?#"); j >= 0 {
		p = p[:j]
	}
	return p
}

// Allowed returns which local networks links may lead into, given the
// hosts the crawl starts from: loopback if one of them is a loopback
// address, private networks if one is a private address.
func Allowed(hosts []string) (loopback, private bool) {
	for _, h := range hosts {
		switch Class(h) {
		case Loopback:
			loopback = true
		case PrivateNet:
			private = true
		}
	}
	return loopback, private
}

// Refuse reports whether a connection to a must be turned down: it is
// link-local, unspecified or multicast, or loopback or private while those
// are not allowed (see Allowed). It is the dial-time twin of Check, for
// fetch.Options.Refuse: it also catches names that resolve into the local
// network and redirects there.
func Refuse(a netip.Addr, loopback, private bool) bool {
	host := a.Unmap().String()
	if a.Unmap().Is6() {
		host = "[" + host + "]"
	}
	switch Class(host) {
	case Loopback:
		return !loopback
	case PrivateNet:
		return !private
	case LinkLocal:
		return true
	}
	return a.IsMulticast()
}
