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
// near-identical to those pages: at most one token in fifty is new. A
// day of an empty calendar has none; a page of a listing names new
// items.
func Repetitive(novel, total int) bool {
	return total > 0 && novel*50 <= total
}

// Tokens returns the distinct tokens of a page of pattern pat, by which
// Repetitive compares it with the pattern's other pages: the words of
// its body (letters only, lower case: numbers and markup punctuation
// separate words, so dates and counters do not make a page new) and the
// links it holds to URLs of other patterns (patterns maps a link to its
// pattern). Each token is a hash with seed.
func Tokens(seed maphash.Seed, pat string, body []byte, links []string, patterns func(string) string) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	add := func(kind byte, s string) {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteByte(kind)
		h.WriteString(s)
		if k := h.Sum64(); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	start := -1
	for i := 0; i <= len(body); i++ {
		letter := i < len(body) && (body[i]|0x20 >= 'a' && body[i]|0x20 <= 'z' || body[i] >= 0x80)
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			if i-start <= 40 {
				add('w', strings.ToLower(string(body[start:i])))
			}
			start = -1
		}
	}
	for _, l := range links {
		if patterns(l) != pat {
			add('l', l)
		}
	}
	return out
}
