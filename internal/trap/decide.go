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

// Repetitive reports whether a page with total tokens (Tokens), novel of
// them distinct and unseen on the earlier pages of its pattern, is
// near-identical to those pages: it says nothing they did not, in words
// in the same order (numbers aside) and in links to other patterns. An
// empty calendar's days are; a page of a listing names new items, a
// photo page links a new photo, an article says new sentences.
func Repetitive(novel, total int) bool {
	return total > 0 && novel == 0
}

// Tokens returns the tokens of a page of pattern pat, by which Repetitive
// compares it with the pattern's other pages: each run of three words of
// its body (letters only, lower case: numbers and markup punctuation
// separate words, so dates and counters do not make a page new, while
// sentences of the same words in another order do), and the links it
// holds to URLs of other patterns (patterns maps a link to its pattern).
// Each token is a hash with seed. A token the page holds twice comes
// twice, not sorted away: a caller that marks each token seen as it
// counts the unseen ones counts it once.
func Tokens(seed maphash.Seed, pat string, body []byte, links []string, patterns func(string) string) []uint64 {
	out := make([]uint64, 0, len(body)/8+len(links))
	var w [3]uint64 // the last three words' hashes
	n := 0
	eachWord(seed, body, func(h uint64) {
		w[0], w[1], w[2] = w[1], w[2], h
		if n++; n >= 3 {
			out = append(out, Mix(Mix(Mix('w', w[0]), w[1]), w[2]))
		}
	})
	switch n {
	case 1:
		out = append(out, Mix('w', w[2]))
	case 2:
		out = append(out, Mix(Mix('w', w[1]), w[2]))
	}
	for _, l := range links {
		if !samePattern(l, pat, patterns) {
			out = append(out, Mix('l', maphash.String(seed, l)))
		}
	}
	return out
}

// mix folds h into k (the finaliser of MurmurHash3 over their sum).
func Mix(k, h uint64) uint64 {
	k = k*0x9e3779b97f4a7c15 + h
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	return k ^ k>>33
}

// eachWord calls f with the hash of each word of body: a run of letters
// (any non-ASCII byte counts as one), in lower case, of at most 40 bytes
// (longer runs are dropped: encoded data, not words).
func eachWord(seed maphash.Seed, body []byte, f func(uint64)) {
	var buf [40]byte
	n, long := 0, false
	for i := 0; i <= len(body); i++ {
		c := byte(' ')
		if i < len(body) {
			c = body[i]
		}
		switch {
		case c >= 'A' && c <= 'Z':
			c |= 0x20
			fallthrough
		case c >= 'a' && c <= 'z' || c >= 0x80:
			if n < len(buf) {
				buf[n] = c
				n++
			} else {
				long = true
			}
		default:
			if n > 0 && !long {
				f(maphash.Bytes(seed, buf[:n]))
			}
			n, long = 0, false
		}
	}
}

// samePattern reports whether the URL u is of pattern pat; without a
// query, by comparing its masked host and path with pat as they stream,
// with no allocation.
func samePattern(u, pat string, patterns func(string) string) bool {
	_, rest, ok := strings.Cut(u, "://")
	if !ok || strings.ContainsAny(rest, "?#") {
		return patterns(u) == pat
	}
	host, path, _ := strings.Cut(rest, "/")
	if len(host) > len(pat) || !strings.EqualFold(host, pat[:len(host)]) {
		return false
	}
	p := pat[len(host):]
	j := 0
	expect := func(c byte) bool {
		if j < len(p) && p[j] == c {
			j++
			return true
		}
		return false
	}
	if !expect('/') {
		return false
	}
	digits := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= '0' && c <= '9' {
			if !digits && !expect('N') {
				return false
			}
			digits = true
			continue
		}
		digits = false
		if !expect(c) {
			return false
		}
	}
	return j == len(p)
}
