package change

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"time"
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
	us, hs := firsts(urls)
	moved, _ := movedUp(hashes(prev), hs)
	var out []string
	for i, m := range moved {
		if m {
			out = append(out, us[i])
		}
	}
	return out
}

// TurnedOver reports whether a page's announcements may have turned over
// whole since the visit before (prev, as Links gave it): nothing of what
// the page listed where its first run of announcements (Announced) now
// stands is left below them. The old links between the link that precedes
// the announcements and the first old link that follows them are all gone
// or among the announcements, and at least two are gone: a list that
// scrolls keeps its old top below its new entries until it turns over,
// and when nothing of it is left, pages may have come and gone from it
// between the two visits unseen. One link replaced (a renamed menu entry,
// the top entry deleted as one came) is no evidence. Exactly as many
// entries as the list holds look the same: the visit came just in time,
// or too late.
func TurnedOver(prev string, urls []string) bool {
	prevs := hashes(prev)
	_, hs := firsts(urls)
	moved, before := movedUp(prevs, hs)
	first := slices.Index(moved, true)
	if first < 0 {
		return false
	}
	end := first
	for end < len(moved) && moved[end] {
		end++
	}
	// The old block: after the link before the announcements (or the
	// top), up to the first old link after them (or the end).
	from, to := 0, len(prevs)
	if first > 0 {
		from = before[hs[first-1]] + 1 // not moved: an old link
	}
	for i := end; i < len(hs); i++ {
		if p, ok := before[hs[i]]; ok && !moved[i] {
			to = p
			break
		}
	}
	news := make(map[uint64]bool, end-first)
	kept := make(map[uint64]bool, len(hs))
	for i, h := range hs {
		if i >= first && i < end {
			news[h] = true
		} else {
			kept[h] = true
		}
	}
	gone := 0
	for _, h := range prevs[from:max(from, to)] {
		switch {
		case kept[h]:
			return false // an old entry is still listed below or above them
		case !news[h]:
			gone++
		}
	}
	return gone >= 2
}

// Churn returns how much of a page's list of announcements the visit
// found replaced since the visit before (prev, as Links gave it): of the
// old links that left the page or moved within it, the share that left.
// A list of the latest five that gained three at the top lost its three
// oldest and moved the other two down: 3/5. Links that kept their place
// (the navigation around the list) do not count. It is 1 if the list
// turned over whole (TurnedOver); 0 with no previous order, or if fewer
// than two links left: one link replaced (a renamed menu entry) is no
// evidence, as for TurnedOver.
func Churn(prev string, urls []string) float64 {
	if TurnedOver(prev, urls) {
		return 1
	}
	prevs := hashes(prev)
	_, hs := firsts(urls)
	now := make(map[uint64]int, len(hs))
	for i, h := range hs {
		now[h] = i
	}
	gone, moved := 0, 0
	for i, h := range prevs {
		switch j, ok := now[h]; {
		case !ok:
			gone++
		case j != i:
			moved++
		}
	}
	if gone < 2 {
		return 0
	}
	return float64(gone) / float64(gone+moved)
}

// PollAfter returns how soon a start page is worth polling again, sooner
// than shortest, when its list of announcements moves faster than that:
// since is the time since the poll before, churn what this poll found of
// the list replaced (Churn). The next poll is due when about half the
// list will have been replaced at the rate seen, and at most twice as
// late as this one (the list may have paused), so a page listed between
// two polls is still listed at the second; never sooner than floor (what
// the caller's request rate allows). ok is false when the rate seen
// allows shortest or longer: the page's model decides.
func PollAfter(churn float64, since, shortest, floor time.Duration) (d time.Duration, ok bool) {
	d = min(2*since, shortest)
	if churn > 0 {
		d = min(time.Duration(float64(since)/(2*churn)), d)
	}
	d = max(d, floor)
	return d, d < shortest
}

// movedUp compares the hashes of a page's links now (hs) with their order
// at the visit before (prevs): moved[i] says hs[i] is new on the page or
// moved up past a link it used to follow; before gives each old link's
// first position. With no previous order nothing moved.
func movedUp(prevs, hs []uint64) (moved []bool, before map[uint64]int) {
	moved = make([]bool, len(hs))
	if len(prevs) == 0 {
		return moved, nil
	}
	before = make(map[uint64]int, len(prevs))
	for i, h := range prevs {
		if _, dup := before[h]; !dup {
			before[h] = i
		}
	}
	// A link moved up when a link after it now was before it then: its
	// old position is above the least old position of those after it.
	least := math.MaxInt
	for i := len(hs) - 1; i >= 0; i-- {
		p, ok := before[hs[i]]
		switch {
		case !ok:
			moved[i] = true // new on the page
		case p > least:
			moved[i] = true
		default:
			least = p
		}
	}
	return moved, before
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
