package crawl

import "hash/maphash"

// recentSlots is the size of a recentLinks table: 32,768 hashes, 256 KiB.
const recentSlots = 1 << 15

// recentLinks remembers, approximately, the links the passes of a run
// have carried, so that adapt can tell the links a pass carries for the
// first time from those on every page (home, an index, a style sheet): a
// direct-mapped table of 64-bit hashes, fixed in size however large the
// site. A link is forgotten when another takes its slot; one never carried
// is taken for seen only if its hash equals another's. Part of fetching
// ahead (ahead.go), under the lock of jobs (jobs.go).
type recentLinks struct {
	seed  maphash.Seed
	slots []uint64
}

// seen reports whether url was carried before, and remembers it.
func (r *recentLinks) seen(url string) bool {
	if r.slots == nil {
		r.seed, r.slots = maphash.MakeSeed(), make([]uint64, recentSlots)
	}
	h := maphash.String(r.seed, url) | 1 // 0 is an empty slot
	i := (h >> 1) & (recentSlots - 1)    // not bit 0, which is always 1
	if r.slots[i] == h {
		return true
	}
	r.slots[i] = h
	return false
}
