package crawl

import (
	"context"
	"encoding/json"
	"hash/maphash"
	"log/slog"
	"slices"
	"sync"

	"github.com/spider-mirror/spider/internal/trap"
)

// CappedPattern is a URL pattern (trap.Pattern) whose links the spider no
// longer takes, and why; for a path with too many query shapes, the path.
type CappedPattern struct {
	Pattern string `json:"pattern"`
	Reason  string `json:"reason"`
	URLs    int    `json:"urls"`  // URLs of the pattern taken before it was capped
	Pages   int    `json:"pages"` // pages of it read, of which Similar near-identical
	Similar int    `json:"similar"`
}

// traps keeps the counts internal/trap decides from: per URL pattern, the
// URLs taken and the pages read and found near-identical; per path, the
// query shapes taken; and what the defences cut, by reason. Every worker
// reads pages and judges links through it, under its one lock. It
// remembers what it saw in a Bloom filter (tokens of pages, URLs taken
// and cut, shapes) and in maps bounded by maxPatterns, for the life of
// the run; the patterns capped are published with the spider's status,
// and a run started again takes them up (inherit).
type traps struct {
	cfg  trap.Config
	seed maphash.Seed
	log  *slog.Logger

	mu     sync.Mutex
	seen   []uint64                // Bloom filter of trapBits bits: see mark
	counts map[uint64]*trap.Counts // pattern -> counts
	shapes map[uint64]int          // path -> query shapes taken
	capped []CappedPattern         // newest last, at most maxCapped
	cut    map[string]int          // reason -> distinct URLs cut
}

const (
	trapBits    = 1 << 25 // 4 MiB: one false "seen" in 300 at a million keys
	lineBits    = 512     // a cache line: both bits of a key are in one
	maxPatterns = 1 << 18 // patterns and paths counted; past this, new ones are not
	maxCapped   = 100
)

func newTraps(cfg trap.Config, log *slog.Logger) *traps {
	return &traps{cfg: cfg, seed: maphash.MakeSeed(), log: log,
		counts: map[uint64]*trap.Counts{}, shapes: map[uint64]int{}, cut: map[string]int{}}
}

// bits returns the two bits of key (of kind) in the Bloom filter, two
// different ones in the same cache line (lineBits bits, which the
// filter's allocation, a multiple of the page size, aligns), so that
// marking or testing a key reads one line of memory, not two: a page's
// tokens are hundreds of keys. Keys are hashes with the run's seed
// already, so a plain mix spreads them.
func (t *traps) bits(kind byte, key uint64) [2]uint64 {
	h := trap.Mix(uint64(kind), key)
	line := h % (trapBits / lineBits) * lineBits
	a := h >> 32 % lineBits
	b := (a + 1 + h>>41%(lineBits-1)) % lineBits
	return [2]uint64{line + a, line + b}
}

// has reports whether key (of kind) was marked, or is taken for one.
func (t *traps) has(kind byte, key uint64) bool {
	if t.seen == nil {
		return false
	}
	for _, i := range t.bits(kind, key) {
		if t.seen[i/64]&(1<<(i%64)) == 0 {
			return false
		}
	}
	return true
}

// mark marks key (of kind) and reports whether it was marked already.
func (t *traps) mark(kind byte, key uint64) bool {
	if t.seen == nil {
		t.seen = make([]uint64, trapBits/64) // on first use: most tests never judge a link
	}
	had := true
	for _, i := range t.bits(kind, key) {
		if w, b := &t.seen[i/64], uint64(1)<<(i%64); *w&b == 0 {
			*w |= b
			had = false
		}
	}
	return had
}

func (t *traps) hash(s string) uint64 { return maphash.String(t.seed, s) }

// countsOf returns the counts of the pattern hash p, nil once maxPatterns
// patterns are counted and p is not one of them.
func (t *traps) countsOf(p uint64, u string) *trap.Counts {
	c := t.counts[p]
	if c == nil && len(t.counts) < maxPatterns {
		c = &trap.Counts{Dated: trap.Dated(u)}
		t.counts[p] = c
	}
	return c
}

// read counts a page of url that was read (an HTML page with its links,
// judged, judgedLinks, for their URLs as the crawl takes them):
// near-identical to the earlier pages of its pattern or not. Only a
// pattern with more than one URL can be a trap, so the tokens of the
// others (most pages of most sites) are not remembered. A page counts
// once, at its first read: a trap is many URLs saying the same, and a
// page read again as it is refreshed says what it said before, up to a
// counter or a link to its neighbour. Counted at each read, a forum's
// topic pages, refreshed as replies and new topics shift them, capped
// their own pattern within minutes, and new topics were no longer taken.
func (t *traps) read(u string, body []byte, judged []judgedLink) {
	if t.cfg.SimilarPages <= 0 {
		return
	}
	pat := trap.Pattern(u)
	p := t.hash(pat)
	t.mu.Lock()
	c := t.countsOf(p, u)
	many := c != nil && c.URLs > 1 && !t.mark('r', t.hash(u))
	t.mu.Unlock()
	if !many {
		return
	}
	urls := make([]string, 0, len(judged))
	for _, l := range judged {
		if f, _ := t.cfg.Cut(l.url); f == "" {
			urls = append(urls, l.url) // links to machinery name the page, not what it holds
		}
	}
	toks := trap.Tokens(t.seed, pat, body, urls, trap.Pattern)
	t.mu.Lock()
	defer t.mu.Unlock()
	novel := 0 // distinct: a token's first mark makes its repeats seen
	for _, k := range toks {
		if !t.mark('t', k^p) {
			novel++
		}
	}
	c.Pages++
	if trap.Repetitive(novel, len(toks)) {
		c.Similar++
	}
	if capped, why := t.cfg.Capped(*c); capped {
		t.note(p, pat, why, *c)
	}
}

// judge decides whether the link u, which passed the scope rules, is
// taken: "" if so (and it is counted), else the reason it is cut (and the
// cut is counted). A link once taken stays taken and a link once cut stays
// cut (counts only grow), so the rewriting of a page's links into the
// mirror (mirrors) and the links taken from it (follows) agree whichever
// asks first.
func (t *traps) judge(u string) string {
	if f, _ := t.cfg.Cut(u); f != "" {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.cutOne(u, f.Reason())
	}
	// A site's menus are on every page, and a link is judged again when
	// linkFiles has forgotten it (decideLink) or a held link is offered
	// again: a link taken already is answered before its pattern is
	// worked out.
	uh := t.hash(u)
	t.mu.Lock()
	taken := t.has('u', uh)
	t.mu.Unlock()
	if taken {
		return ""
	}
	pat := trap.Pattern(u)
	path, shape := trap.Shape(u)
	p := t.hash(pat)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.has('u', uh) {
		return "" // taken already, before any cap
	}
	c := t.countsOf(p, u)
	if c == nil {
		return ""
	}
	if capped, why := t.cfg.Capped(*c); capped {
		t.note(p, pat, why, *c)
		return t.cutOne(u, why)
	}
	if shape != "" {
		ph := t.hash(path)
		sh := ph ^ t.hash(shape)
		if !t.has('s', sh) {
			if t.cfg.ShapeCapped(t.shapes[ph]) {
				t.note(ph, path, trap.ReasonShapes, trap.Counts{URLs: t.shapes[ph]})
				return t.cutOne(u, trap.ReasonShapes)
			}
			t.mark('s', sh)
			if t.shapes[ph] > 0 || len(t.shapes) < maxPatterns {
				t.shapes[ph]++
			}
		}
	}
	t.mark('u', uh)
	c.URLs++
	return ""
}

// judgeRequisite is judge for a link its page loads to display: only
// what trap.Config.CutRequisite cuts (a beacon) is left out.
func (t *traps) judgeRequisite(u string) string {
	if f, _ := t.cfg.CutRequisite(u); f != "" {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.cutOne(u, f.Reason())
	}
	return ""
}

// cutOne counts the URL u cut for reason, once per URL, and returns the
// reason.
func (t *traps) cutOne(u, reason string) string {
	if !t.mark('c', t.hash(u)) && (t.cut[reason] > 0 || len(t.cut) < maxPatterns) {
		t.cut[reason]++
	}
	return reason
}

// note remembers that the pattern pat (hash p) is capped, once, and
// says so in the log.
func (t *traps) note(p uint64, pat, reason string, c trap.Counts) {
	if t.mark('n', p) {
		return
	}
	t.log.Info("URL pattern capped: links into it are no longer followed", "pattern", pat, "reason", reason,
		"urls", c.URLs, "pages", c.Pages, "near_identical", c.Similar)
	t.capped = append(t.capped, CappedPattern{Pattern: pat, Reason: reason, URLs: c.URLs, Pages: c.Pages, Similar: c.Similar})
	if len(t.capped) > maxCapped {
		t.capped = t.capped[len(t.capped)-maxCapped:]
	}
}

// snapshot returns the URLs cut by reason and the patterns capped.
func (t *traps) snapshot() (map[string]int, []CappedPattern) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cut := make(map[string]int, len(t.cut))
	for k, v := range t.cut {
		cut[k] = v
	}
	return cut, slices.Clone(t.capped)
}

// inherit takes up the patterns that the spiders of list l capped before (their published statuses: this spider's last run and
// the others'), with their counts, so that a trap stays capped across a
// restart and for every spider of the list. The counts are judged again
// under this spider's budgets: a budget raised since lets the pattern go
// on.
func (t *traps) inherit(l Store) {
	sts, err := l.Statuses(context.Background())
	if err != nil {
		t.log.Warn("capped URL patterns of earlier runs not read; traps are counted afresh", "err", err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, sp := range sts {
		var st Status
		if json.Unmarshal(sp.Extra, &st) != nil {
			continue
		}
		for _, cp := range st.CappedPatterns {
			t.inheritOne(cp)
		}
	}
}

func (t *traps) inheritOne(cp CappedPattern) {
	p := t.hash(cp.Pattern)
	if cp.Reason == trap.ReasonShapes {
		t.shapes[p] = max(t.shapes[p], cp.URLs)
		if t.cfg.ShapeCapped(t.shapes[p]) {
			t.note(p, cp.Pattern, cp.Reason, trap.Counts{URLs: t.shapes[p]})
		}
		return
	}
	c := t.counts[p]
	if c == nil {
		c = &trap.Counts{}
		t.counts[p] = c
	}
	c.URLs, c.Pages, c.Similar = max(c.URLs, cp.URLs), max(c.Pages, cp.Pages), max(c.Similar, cp.Similar)
	c.Dated = c.Dated || cp.Reason == trap.ReasonDated
	if capped, why := t.cfg.Capped(*c); capped {
		t.note(p, cp.Pattern, why, *c)
	}
}
