// Package sitetest serves a small forum-like web site that changes under test
// control.
//
// The site is the fake web that spider's tests and the testsite demo crawl. It
// is shaped to exercise the two-spider design (SEEDS 003): updated pages are
// announced on the home page, a depth-limited "fast" spider sees the
// announcements, and only an unlimited "slow" spider reaches pages that sit
// deep behind pagination or are edited without being announced.
//
// Shape, with link levels (shortest link distance from "/") for the default
// 30 topics and no mutations:
//
//	level 0  /                           home: "latest" list of the 5 most recently
//	                                     announced topics, links to /forum/ and /about
//	level 1  /about, /forum/             /forum/ is page 1 of the topic index
//	level 1  /static/site.css, /static/logo.png   requisites of every page
//	level 1  /topic/30-… … /topic/26-…   the latest five, linked from home
//	level 2  /forum/?page=2              the index shows 10 topics a page, newest
//	level 2  /topic/25-… … /topic/21-…   first, and links only the previous and
//	level 3  /forum/?page=3              next page, so page p is at level p
//	level 3  /topic/20-… … /topic/11-…
//	level 4  /topic/10-… … /topic/1-…    includes /topic/7-привет (Cyrillic)
//	level 2…5 /topic/N-…/replies         for every N divisible by 3, one level
//	                                     below its topic; /topic/3-…/replies is at 5
//
// That is 47 reachable paths at the default size: home, about, 3 index pages,
// 30 topics, 10 replies pages and 2 requisites (by level: 1, 9, 8, 13, 13, 3).
// /robots.txt is served too but linked from nowhere, so it is not in Paths.
// With T topics there are ceil(T/10) index pages and no page is deeper than
// ceil(T/10)+2. Levels move as the site changes: Levels reports them.
//
// A topic page links home, its own index page, and the next older and next
// newer live topic (1–2 topics), never a topic more than one index page away,
// so pagination alone sets the depth. Links deliberately come in every
// spelling a crawler must resolve: absolute paths, a query-only reference
// ("?page=3"), "./", a relative child ("12-slug/replies"), "../12-slug",
// fragments ("#top"), percent-encoded UTF-8, a relative url() in the
// stylesheet, and an off-site https link and a mailto link (both on /about).
//
// Mutations change the site the way a living forum does. AddTopic and Announce
// put a topic at the top of the home page's latest list; EditTopic changes a
// topic silently; Delete makes a topic and its replies page answer 404 (410
// with Options.Gone410) and removes every link to them. Adding or deleting
// topics shifts the index pagination, so topics move between pages and levels.
//
// Every page has a strong ETag (a hash of its body) and a Last-Modified time
// taken when its body last changed; conditional GETs (If-None-Match,
// If-Modified-Since) answer 304, and Range requests work (http.ServeContent).
// Last-Modified is kept strictly increasing per page, whole seconds apart, so a
// client that revalidates with If-Modified-Since alone never misses an edit,
// even two in the same second (at the price of a time slightly in the future).
//
// Page bodies are a pure function of the sequence of mutations: two Sites
// built with the same Options and given the same calls serve identical bytes.
// Only Last-Modified and the request log depend on the clock.
//
// Paths are spelled as the site's absolute links spell them: percent-encoded,
// query string kept ("/forum/?page=2", "/topic/7-%D0%BF…"). Methods taking a
// path also accept the decoded spelling ("/topic/7-привет").
//
// Options.Shape selects a second shape, Articles: the same topics rendered
// as long articles with an image each, in sections and an archive chain
// (see Articles). What this comment says of pages and links is the forum's.
//
// A Site is safe for concurrent use.
package sitetest

import (
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Defaults and shape constants.
const (
	DefaultTopics = 30 // topics created by New when Options.Topics is 0 or less
	PerPage       = 10 // topics per index page
	LatestLen     = 5  // topics in the home page's latest list
	// MaxRequests bounds the request log; older entries are dropped.
	MaxRequests = 100_000
)

// Options configure a Site. The zero value is a 30-topic site with no latency.
type Options struct {
	// Topics is the number of topic pages created at start; 0 or less means
	// DefaultTopics.
	Topics int
	// Latency is slept before answering each request. The sleep ends early
	// if the request's context is done, and the request is then answered
	// 503 Service Unavailable.
	Latency time.Duration
	// Shape is how topics are rendered: Forum (the zero value) or
	// Articles.
	Shape Shape
	// Gone410 makes deleted pages answer 410 Gone instead of 404 Not Found.
	Gone410 bool
	// Now is the clock used for Last-Modified and the request log;
	// nil means time.Now.
	Now func() time.Time
	// OnRequest, if set, is called with every request as it is logged:
	// the log keeps only the latest ones, a counter sees them all.
	OnRequest func(Request)
	// Versioned puts each HTML page's version (Versions) in its head as
	// <meta name="x-version" content="N">, which survives link rewriting.
	Versioned bool
	// StablePages: Articles' index pages are fixed buckets of article
	// numbers, never shifted (renderStableArticles); the forum ignores it.
	StablePages bool
}

// Request is one entry of the request log.
type Request struct {
	Time      time.Time // when the answer was finished
	Method    string
	Path      string // request URI as received: escaped path plus "?query"
	Status    int    // status sent
	UserAgent string
	Took      time.Duration // from the request's arrival to the end of its answer, by the real clock
}

// Site is the in-memory forum. Create it with New.
type Site struct {
	opt Options
	now func() time.Time

	mu     sync.RWMutex
	topics []*topic          // index id-1; deleted topics stay, flagged
	byPath map[string]*topic // topic page path (escaped) → topic
	seq    uint64            // announcement counter
	pages  map[string]*page  // every servable path, by key
	levels map[string]int    // reachable paths → link level
	gone   map[string]bool   // paths of deleted pages
	stamps map[string]stamp  // last ETag and Last-Modified of every path ever served
	images map[int][]byte    // Articles: each article's image, by topic id, encoded once

	logMu   sync.Mutex
	log     []Request // ring buffer of at most maxRequests entries
	logNext int       // next slot to overwrite once the ring is full
}

// maxRequests is MaxRequests; a variable so tests can shrink the ring.
var maxRequests = MaxRequests

type topic struct {
	id         int
	title      string
	path       string // escaped, "/topic/12-slug"
	seg        string // escaped last segment, "12-slug"
	rev        int
	announced  uint64
	deleted    bool
	hasReplies bool
}

// stamp is the validator pair last served for a path, and its version.
type stamp struct {
	etag string
	sum  string // digest of the body without its version marker
	mod  time.Time
	ver  int
}

// page is one servable resource as of the last rebuild.
type page struct {
	body  []byte
	ctype string
	etag  string
	mod   time.Time
	ver   int
	links []string // keys of linked pages on this site, in document order
}

// New returns a site with o.Topics topics, all announced in creation order,
// so the latest list starts with the newest five.
func New(o Options) *Site {
	if o.Topics <= 0 {
		o.Topics = DefaultTopics
	}
	s := &Site{
		opt:    o,
		now:    o.Now,
		byPath: make(map[string]*topic),
		pages:  make(map[string]*page),
		gone:   make(map[string]bool),
		stamps: make(map[string]stamp),
		images: make(map[int][]byte),
	}
	if s.now == nil {
		s.now = time.Now
	}
	cyr := 7
	if o.Topics < cyr {
		cyr = 1
	}
	for i := 1; i <= o.Topics; i++ {
		title := topicTitle(i)
		if i == cyr {
			title = "Привет!"
		}
		s.addTopicLocked(title)
	}
	s.rebuildLocked()
	return s
}

// AddTopic creates a topic page titled title (a default title if empty),
// announces it at the top of the home page's latest list, and returns its
// path. Topic numbers are never reused.
func (s *Site) AddTopic(title string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.addTopicLocked(title)
	s.rebuildLocked()
	return t.path
}

// EditTopic changes the body of the topic at path, bumping the revision shown
// on the page, without announcing it: no other page changes. Unknown or
// deleted paths are ignored.
func (s *Site) EditTopic(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.liveTopic(path); t != nil {
		t.rev++
		s.rebuildLocked()
	}
}

// Announce edits the topic at path, as EditTopic does, and moves it to the top
// of the home page's latest list. Unknown or deleted paths are ignored.
func (s *Site) Announce(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.liveTopic(path); t != nil {
		t.rev++
		s.seq++
		t.announced = s.seq
		s.rebuildLocked()
	}
}

// Delete removes the topic at path and its replies page (an article and its
// image): they answer 404 (410 with Options.Gone410) and every link to them
// disappears. Unknown or already deleted paths are ignored.
func (s *Site) Delete(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.liveTopic(path)
	if t == nil {
		return
	}
	t.deleted = true
	s.gone[t.path] = true
	if t.hasReplies {
		s.gone[repliesPath(t)] = true
	}
	if s.opt.Shape == Articles {
		s.gone[imagePath(t)] = true
	}
	s.rebuildLocked()
}

// Paths returns every page currently reachable by following links from "/"
// (HTML pages and their requisites), sorted, spelled as in links.
func (s *Site) Paths() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.levels))
	for p := range s.levels {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Levels returns the link level (shortest number of links from "/") of every
// path in Paths. A crawler limited to depth d fetches exactly the paths of
// level d or less.
func (s *Site) Levels() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]int, len(s.levels))
	for p, l := range s.levels {
		out[p] = l
	}
	return out
}

// Body returns a copy of the current body served at path, including pages
// linked from nowhere such as /robots.txt; ok is false if path answers 404,
// 410 or a redirect.
func (s *Site) Body(path string) (body []byte, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.pages[canonical(path)]
	if p == nil {
		return nil, false
	}
	return append([]byte(nil), p.body...), true
}

// Requests returns a copy of the request log, oldest first: the last
// MaxRequests requests answered (or abandoned) by the Handler.
func (s *Site) Requests() []Request {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	out := make([]Request, 0, len(s.log))
	out = append(out, s.log[s.logNext:]...)
	return append(out, s.log[:s.logNext]...)
}

func (s *Site) record(r Request) {
	if s.opt.OnRequest != nil {
		s.opt.OnRequest(r)
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if len(s.log) < maxRequests {
		s.log = append(s.log, r)
		return
	}
	s.log[s.logNext] = r
	s.logNext = (s.logNext + 1) % len(s.log)
}

func (s *Site) addTopicLocked(title string) *topic {
	title = strings.TrimSpace(title)
	if title == "" {
		title = "Untitled"
	}
	id := len(s.topics) + 1
	seg := url.PathEscape(itoa(id) + "-" + slug(title))
	s.seq++
	t := &topic{
		id:         id,
		title:      title,
		path:       s.opt.Shape.topicDir() + seg,
		seg:        seg,
		rev:        1,
		announced:  s.seq,
		hasReplies: id%3 == 0 && s.opt.Shape == Forum,
	}
	s.topics = append(s.topics, t)
	s.byPath[t.path] = t
	return t
}

func (s *Site) liveTopic(path string) *topic {
	t := s.byPath[canonical(path)]
	if t == nil || t.deleted {
		return nil
	}
	return t
}

// canonical returns the key spelling of a path: the path re-escaped the way
// links spell it, then "?query" if there is one.
func canonical(p string) string {
	path, query, _ := strings.Cut(p, "?")
	if dec, err := url.PathUnescape(path); err == nil {
		path = dec
	}
	return pathKey(path, query)
}

// pathKey returns the key of a decoded path and a raw query.
func pathKey(path, rawQuery string) string {
	k := (&url.URL{Path: path}).EscapedPath()
	if rawQuery != "" {
		k += "?" + rawQuery
	}
	return k
}

// slug turns a title into a path segment: lower-case letters and digits of
// any script, runs of anything else folded into one "-".
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range title {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "topic"
	}
	return b.String()
}

func repliesPath(t *topic) string { return t.path + "/replies" }
