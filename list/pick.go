package list

import (
	"container/heap"
	"sort"
)

// Picker decides which unclaimed lines a pass claims: it is the crawl
// policy, kept out of this package. Due and Less see entries that are valid
// only during the call, and may be called from several goroutines at once
// (a pass reads a large list in parallel sections).
type Picker interface {
	Due(e *Entry) bool     // may e be claimed now?
	Less(a, b *Entry) bool // is a more urgent than b? Ties go to the earlier line.
	Max() int              // claim at most this many lines
}

// claim claims the lines on the plan's heap for c.Spider, most urgent
// first, and reports them in c.Claimed as they were before. A line the
// pass already changes (a claim taken back) or appends is claimed in its
// planned form; any other gets an update of its own.
func (p *plan) claim(c *Cycle) {
	// sort.Sort compares the heap's own items: a comparison of copies
	// would put both on the heap, the Picker being an interface.
	sort.Sort(sort.Reverse(&p.h))
	for _, it := range p.h.items {
		if it.e.Modified.IsZero() {
			c.Stats.Unvisited--
		}
		c.Claimed = append(c.Claimed, it.e)
		e := it.e
		e.Spider = c.Spider
		if e.State == Found {
			e.State = Claimed
		}
		switch {
		case it.off >= p.end:
			p.fresh[it.off-p.end] = e // appended already claimed
		case it.upd >= 0:
			p.updates[it.upd].e = e // taken back and re-claimed in one pass
		default:
			p.updates = append(p.updates, update{off: it.off, prefix: it.prefix, e: e})
		}
	}
	c.Stats.Claimed = len(p.h.items)
}

// cand is a line the picker may claim.
type cand struct {
	off    int64
	prefix int
	upd    int // index in updates if the pass changed the line, else -1
	e      Entry
}

// pickHeap keeps the Max most urgent candidates, least urgent on top.
type pickHeap struct {
	p     Picker
	items []cand
}

func (h *pickHeap) cmp(a, b *cand) int { // >0 if a is more urgent than b
	switch {
	case h.p.Less(&a.e, &b.e):
		return 1
	case h.p.Less(&b.e, &a.e):
		return -1
	case a.off < b.off:
		return 1
	case a.off > b.off:
		return -1
	}
	return 0
}

func (h *pickHeap) Len() int           { return len(h.items) }
func (h *pickHeap) Less(i, j int) bool { return h.cmp(&h.items[i], &h.items[j]) < 0 }
func (h *pickHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *pickHeap) Push(x any)         { h.items = append(h.items, x.(cand)) }
func (h *pickHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// offer considers a line whose entry is only valid during the call. Most
// lines lose to the least urgent kept candidate, so that test comes first
// and allocates nothing: a candidate (and a copy of the entry) is built
// only for a line that gets in.
func (h *pickHeap) offer(max int, off int64, prefix int, e *Entry, changed bool, updIdx int) {
	if max <= 0 || len(h.items) >= max && !h.beats(e, off, &h.items[0]) {
		return
	}
	c := cand{off: off, prefix: prefix, upd: -1, e: e.Clone()}
	if changed {
		c.upd = updIdx
	}
	h.push(max, c)
}

// beats reports whether the line (e, off) is more urgent than candidate b.
func (h *pickHeap) beats(e *Entry, off int64, b *cand) bool {
	switch {
	case h.p.Less(e, &b.e):
		return true
	case h.p.Less(&b.e, e):
		return false
	}
	return off < b.off
}

// push considers a candidate that owns its entry.
func (h *pickHeap) push(max int, c cand) {
	switch {
	case max <= 0:
	case len(h.items) < max:
		heap.Push(h, c)
	case h.cmp(&c, &h.items[0]) > 0:
		h.items[0] = c
		heap.Fix(h, 0)
	}
}
