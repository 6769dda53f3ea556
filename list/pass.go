package list

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// A pass reads the list once, line by line, and decides what to change
// (a plan); then it writes the plan (write.go). Reading, each line in
// turn: lower its level if an Add found it shallower, record the result
// of a claim the spider holds, take back the claim of a dead or stalled
// owner, and offer the line to the Picker (pick.go). The Adds no line
// matched are appended.

// pending is what a pass carries for one URL: the Add and the Result for
// it, and whether a line of the list matched it.
type pending struct {
	add    *Add
	hint   time.Time // the latest Hint of the URL's Adds
	res    *Result
	exists bool
}

// update is a line whose prefix the pass changes.
type update struct {
	off    int64
	prefix int // length of the line's current prefix
	e      Entry
}

// plan is what a pass decided while reading the list, before it writes.
type plan struct {
	end, torn  int64    // the list's complete lines end at end; a torn tail of torn bytes follows
	lines      int      // entry lines read
	updates    []update // lines whose prefix changes
	fresh      []Entry  // lines to append, in order
	freshWidth []int    // the width of each one's file field
	h          pickHeap // the lines to claim
	max        int      // claim at most this many
	hinted     []string // lines the spider holds that are hinted (Cycle.HintedClaims)
}

// pass runs the cycle c on the locked list: read, decide, write.
func (l locked) pass(c *Cycle) error {
	f, err := os.OpenFile(l.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	defer f.Close()
	if _, err := l.replayJournal(f); err != nil {
		return fmt.Errorf("list: replay journal: %w", err)
	}
	scanStart := time.Now()
	pend := pendingOf(c)
	p, err := l.read(f, c, pend)
	if err != nil {
		return err
	}
	c.HintedClaims = p.hinted
	p.appendNew(c, pend, l.reserve)
	p.claim(c)
	appendBuf := p.appendBuf()
	c.Stats.Added = len(p.fresh)
	c.Stats.Lines = p.lines + c.Stats.Added
	c.Stats.TornBytes = p.torn
	writeStart := time.Now()
	c.Stats.ScanSec = writeStart.Sub(scanStart).Seconds()
	defer func() { c.Stats.WriteSec = time.Since(writeStart).Seconds() }()
	return l.write(f, c, p, appendBuf)
}

// pendingOf indexes the pass's Adds and Results by URL. Of several Adds
// of one URL the shallowest counts, the first of equals, with the latest
// of their hints; of several Results the last.
func pendingOf(c *Cycle) map[string]*pending {
	pend := make(map[string]*pending, len(c.Add)+len(c.Results))
	for i := range c.Add {
		a := &c.Add[i]
		p := pend[a.URL]
		if p == nil {
			p = &pending{add: a}
			pend[a.URL] = p
		} else if p.add == nil || a.Level < p.add.Level {
			p.add = a
		}
		if a.Hint.After(p.hint) {
			p.hint = a.Hint
		}
	}
	for i := range c.Results {
		r := &c.Results[i]
		if p := pend[r.URL]; p == nil {
			pend[r.URL] = &pending{res: r}
		} else {
			p.res = r
		}
	}
	return pend
}

// read reads the list, in parallel sections (parallel.go), and merges
// what each section found in file order, so the plan is the one a
// sequential read would make.
func (l locked) read(f *os.File, c *Cycle, pend map[string]*pending) (*plan, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	p := &plan{h: pickHeap{p: c.Pick}}
	if c.Pick != nil {
		p.max = c.Pick.Max()
	}
	owners := &ownerCache{valid: map[string]bool{}}
	filter := newURLFilter(pend)
	var ws []*scanWorker
	p.end, p.torn, p.lines, err = forEntriesParallel(f, l.path, fi.Size(), func(int) func(int64, *view) error {
		k := &scanWorker{l: l, c: c, pend: pend, filter: filter, owners: owners, max: p.max, h: pickHeap{p: c.Pick}}
		ws = append(ws, k)
		return k.line
	})
	if err != nil {
		return nil, err
	}
	for _, k := range ws {
		p.merge(k, &c.Stats)
	}
	return p, nil
}

// merge adds what one section found to the plan; sections are merged in
// file order.
func (p *plan) merge(k *scanWorker, st *CycleStats) {
	base := len(p.updates)
	p.updates = append(p.updates, k.updates...)
	for _, it := range k.h.items {
		if it.upd >= 0 {
			it.upd += base
		}
		p.h.push(p.max, it)
	}
	for _, m := range k.matched {
		m.exists = true
	}
	p.hinted = append(p.hinted, k.hinted...)
	st.Recorded += k.stats.Recorded
	st.Dropped += k.stats.Dropped
	st.TakenBack += k.stats.TakenBack
	st.Lowered += k.stats.Lowered
	st.Hinted += k.stats.Hinted
	st.FirstElsewhere += k.stats.FirstElsewhere
	st.Unvisited += k.stats.Unvisited
	st.Due += k.stats.Due
}

// appendNew plans a line for every URL of c.Add that no line holds, in
// the order of c.Add. New lines are candidates too: their offsets are
// past the end, in the order they will be appended.
func (p *plan) appendNew(c *Cycle, pend map[string]*pending, reserve func(url string) int) {
	for i := range c.Add {
		a := &c.Add[i]
		m := pend[a.URL]
		if m.exists || m.add != a {
			continue
		}
		m.exists = true
		c.Stats.Unvisited++
		p.fresh = append(p.fresh, Entry{Level: a.Level, State: Found, Due: c.Now.UTC().Truncate(time.Second), URL: a.URL})
		w := a.Width
		if w <= 0 {
			w = reserve(a.URL)
		}
		p.freshWidth = append(p.freshWidth, w)
		e := &p.fresh[len(p.fresh)-1]
		if c.Pick != nil && c.Pick.Due(e) {
			c.Stats.Due++
			p.h.offer(p.max, p.end+int64(len(p.fresh)-1), 0, e, false, -1)
		}
	}
}

// record applies r to e, a line claimed by the recording spider.
func record(e *Entry, r *Result) {
	e.Spider = ""
	if r.State == 0 {
		if e.State == Claimed {
			e.State = Found
		}
		return
	}
	e.State = r.State
	if r.File != "" {
		e.File = r.File
	}
	if !r.Modified.IsZero() {
		hintedMeanwhile := e.Hinted() && !r.ForHint
		e.Modified = r.Modified.UTC().Truncate(time.Second)
		e.Due = time.Time{}
		switch {
		case hintedMeanwhile:
			e.Due = e.Modified // still hinted (Result.ForHint)
		case !r.Due.IsZero():
			e.Due = r.Due.UTC().Truncate(time.Second)
		}
	}
}

// hint marks e hinted if its copy is older than the hint h (Add.Hint),
// and reports whether it changed e.
func hint(e *Entry, h time.Time) bool {
	if h.IsZero() || e.Modified.IsZero() || !h.After(e.Modified) || e.Hinted() {
		return false
	}
	e.Due = e.Modified
	return true
}

// release returns a claim to the pool.
func release(e *Entry) {
	e.Spider = ""
	if e.State == Claimed {
		e.State = Found
	}
}

// ownerCache holds, for one pass, whether each claimant's claims stand.
// The sections of a parallel pass share it, so each owner is probed once:
// two probes at once would see each other's lock and disagree.
type ownerCache struct {
	mu    sync.Mutex
	valid map[string]bool
}

// ownerValid reports whether claims held by spider id still stand; see the
// package doc.
func (l locked) ownerValid(c *Cycle, cache *ownerCache, id string) (bool, error) {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if v, ok := cache.valid[id]; ok {
		return v, nil
	}
	var valid bool
	if id == c.Spider {
		valid = !c.ReleaseOwn // this process holds the spider lock
	} else {
		live, err := alive(l.path, id)
		if err != nil {
			return false, fmt.Errorf("list: probe spider %s: %w", id, err)
		}
		valid = live
		if st, err := readStatus(l.path, id); live && err == nil {
			// The claimant's own lease decides: it is the one the
			// claimant checks before it writes what it fetched.
			lease := time.Duration(st.LeaseSec * float64(time.Second))
			if lease <= 0 {
				lease = c.Lease
			}
			if lease > 0 && c.Now.Sub(st.Heartbeat) > lease {
				valid = false // alive but stalled past its lease
			}
		}
	}
	cache.valid[id] = valid
	return valid, nil
}

// scanWorker is the state of one section of a pass.
type scanWorker struct {
	l       locked
	c       *Cycle
	pend    map[string]*pending // shared, read only
	filter  *urlFilter          // shared, read only: a quick "no" before pend
	owners  *ownerCache
	max     int
	updates []update
	h       pickHeap
	stats   CycleStats
	matched []*pending
	hinted  []string // Cycle.HintedClaims
	cur     Entry    // one Entry for the section: passing it to the Picker must not allocate per line
}

// line handles one line of the section: record a result, take back a dead
// claim, offer the line to the picker.
func (k *scanWorker) line(off int64, v *view) error {
	c := k.c
	k.cur = v.alias()
	e := &k.cur
	changed, recorded := false, false
	if len(k.pend) > 0 && k.filter.mayHold(v.url) {
		if p := k.pend[ustr(v.url)]; p != nil {
			k.matched = append(k.matched, p)
			if a := p.add; a != nil && a.Level < e.Level {
				e.Level = a.Level // fewer digits or as many: the prefix still fits
				k.stats.Lowered++
				changed = true
			}
			if hint(e, p.hint) {
				k.stats.Hinted++
				changed = true
			}
			if r := p.res; r != nil {
				if e.Spider == c.Spider {
					record(e, r)
					k.stats.Recorded++
					changed, recorded = true, true
				} else {
					k.stats.Dropped++
				}
			}
		}
	}
	if e.Spider != "" && !recorded {
		valid, err := k.l.ownerValid(c, k.owners, e.Spider)
		if err != nil {
			return err
		}
		if !valid {
			release(e)
			k.stats.TakenBack++
			changed = true
		} else if e.Spider != c.Spider && e.Modified.IsZero() {
			k.stats.FirstElsewhere++
		}
	}
	if e.Spider == c.Spider && e.Hinted() {
		k.hinted = append(k.hinted, strings.Clone(e.URL))
	}
	if changed {
		k.updates = append(k.updates, update{off: off, prefix: v.urlOff, e: e.Clone()})
	}
	if e.Spider == "" && e.Modified.IsZero() {
		k.stats.Unvisited++
	}
	if e.Spider == "" && c.Pick != nil && c.Pick.Due(e) {
		k.stats.Due++
		k.h.offer(k.max, off, v.urlOff, e, changed, len(k.updates)-1)
	}
	return nil
}
