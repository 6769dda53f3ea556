package trap

import (
	"hash/maphash"
	"strings"
)

// Counts are what a crawl keeps for one URL pattern.
type Counts struct {
	URLs    int  // distinct URLs of the pattern taken into the list
	Pages   int  // pages of the pattern fetched and read
	Similar int  // of those, pages near-identical to the pattern's earlier ones (Repetitive)
	Dated   bool // the pattern names dates (Dated)
}

// Reasons a pattern is capped, as status and show print them.
const (
	ReasonSimilar = "near-identical pages of one URL pattern"
	ReasonDated   = "calendar: date-like URL pattern over its budget"
	ReasonShapes  = "too many query shapes on one path"
)

// Capped reports whether links into a pattern with counts n are no longer
// taken under c, and why.
func (c Config) Capped(n Counts) (bool, string) {
	switch {
	case c.SimilarPages > 0 && n.Similar >= c.SimilarPages:
		return true, ReasonSimilar
	case c.DateURLs > 0 && n.Dated && n.URLs >= c.DateURLs:
		return true, ReasonDated
	}
	return false, ""
}

// ShapeCapped reports whether a link with a query shape new to its path
// is refused, the path having shapes shapes already.
func (c Config) ShapeCapped(shapes int) bool {
	return c.QueryShapes > 0 && shapes >= c.QueryShapes
}

// Repetitive reports whether a page with total distinct tokens (Tokens),
// novel of them unseen on the earlier pages of its pattern, is
// near-identical to those pages: it says nothing they did not, in words
// in the same order (numbers aside) and in links to other patterns. An
// empty calendar's days are; a page of a listing names new items, a
// photo page links a new photo, an article says new sentences.
func Repetitive(novel, total int) bool {
	return total > 0 && novel == 0
}

// Tokens returns the distinct tokens of a page of pattern pat, by which
// Repetitive compares it with the pattern's other pages: each run of
// three words of its body (letters only, lower case: numbers and markup
// punctuation separate words, so dates and counters do not make a page
// new, while sentences of the same words in another order do), and the
// links it holds to URLs of other patterns (patterns maps a link to its
// pattern). Each token is a hash with seed.
func Tokens(seed maphash.Seed, pat string, body []byte, links []string, patterns func(string) string) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	add := func(kind byte, s ...string) {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteByte(kind)
		for _, w := range s {
			h.WriteString(w)
			h.WriteByte(0)
		}
		if k := h.Sum64(); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	ws := words(body)
	for i := 0; i+3 <= len(ws); i++ {
		add('w', ws[i:i+3]...)
	}
	if len(ws) > 0 && len(ws) < 3 {
		add('w', ws...)
	}
	for _, l := range links {
		if patterns(l) != pat {
			add('l', l)
		}
	}
	return out
}

// words returns the words of body: runs of letters (any non-ASCII byte
// counts as one), in lower case, each of at most 40 bytes (longer runs
// are dropped: encoded data, not words).
func words(body []byte) []string {
	var out []string
	start := -1
	for i := 0; i <= len(body); i++ {
		letter := i < len(body) && (body[i]|0x20 >= 'a' && body[i]|0x20 <= 'z' || body[i] >= 0x80)
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			if i-start <= 40 {
				out = append(out, strings.ToLower(string(body[start:i])))
			}
			start = -1
		}
	}
	return out
}
