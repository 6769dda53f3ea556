package change

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"math"
)

// A hub (a home page, a section index, a "recent changes" list) announces
// a change by linking a page it did not link before, or by moving a link
// up: a forum bumps the topic with the newest reply to the top. Links and
// Announced find those links by comparing a page's links with their order
// at the visit before, kept as a short string in the page's record.

// MaxLinks is how many of a page's first links are kept and compared: a
// hub announces at its top.
const MaxLinks = 256

// Links encodes the order of urls (a page's links to other pages, in
// document order; repeats after the first are ignored), at most MaxLinks
// of them, for Announced to compare at the next visit.
func Links(urls []string) string {
	_, hs := firsts(urls)
	b := make([]byte, 0, 8*len(hs))
	for _, h := range hs {
		b = binary.LittleEndian.AppendUint64(b, h)
	}
	return base64.RawStdEncoding.EncodeToString(b)
}

// hashes decodes what Links encoded: the hashes of the links, in order;
// nil if links is empty or unreadable.
func hashes(links string) []uint64 {
	raw, err := base64.RawStdEncoding.DecodeString(links)
	if err != nil || len(raw)%8 != 0 {
		return nil
	}
	hs := make([]uint64, 0, len(raw)/8)
	for i := 0; i+8 <= len(raw); i += 8 {
		hs = append(hs, binary.LittleEndian.Uint64(raw[i:]))
	}
	return hs
}

// Announced returns the links of urls that the page announces compared
// with prev (what Links gave at the visit before): links among its first
// MaxLinks that it did not have before, and links that moved up past one
// they used to follow. A link that moved only because another was removed
// above it is no announcement. With no previous order (a first visit,
// prev empty or unreadable) nothing is announced.
func Announced(prev string, urls []string) []string {
	prevs := hashes(prev)
	if len(prevs) == 0 {
		return nil
	}
	before := make(map[uint64]int, len(prevs))
	for i, h := range prevs {
		if _, dup := before[h]; !dup {
			before[h] = i
		}
	}
	us, hs := firsts(urls)
	// A link moved up when a link after it now was before it then: its
	// old position is above the least old position of those after it.
	pos := make([]int, len(hs))
	for i, h := range hs {
		p, ok := before[h]
		if !ok {
			p = -1
		}
		pos[i] = p
	}
	var out []string
	least := math.MaxInt
	moved := make([]bool, len(hs))
	for i := len(hs) - 1; i >= 0; i-- {
		switch {
		case pos[i] < 0:
			moved[i] = true // new on the page
		case pos[i] > least:
			moved[i] = true
		default:
			least = pos[i]
		}
	}
	for i, m := range moved {
		if m {
			out = append(out, us[i])
		}
	}
	return out
}

// firsts returns the first MaxLinks distinct urls and their hashes.
func firsts(urls []string) ([]string, []uint64) {
	seen := make(map[uint64]bool, min(len(urls), MaxLinks))
	var us []string
	var hs []uint64
	for _, u := range urls {
		h := hashOf(u)
		if seen[h] {
			continue
		}
		seen[h] = true
		us, hs = append(us, u), append(hs, h)
		if len(hs) == MaxLinks {
			break
		}
	}
	return us, hs
}

func hashOf(u string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(u))
	return h.Sum64()
}
