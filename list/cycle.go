package list

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"time"
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

// Add is a newly found link. It is appended if the list holds no line for
// its URL; a line that holds the URL at a deeper level takes the Add's
// level, the link having been found on a shallower page. So a line's level
// is the lowest any Add gave it: the shortest link distance found so far.
// (The lines a page's links added move up with the page only when they are
// added again: when a shallower page links to them too, or when the page
// is fetched and its links found again.)
type Add struct {
	URL   string // canonical
	Level int
	Width int // bytes to reserve for the file field; 0 asks Options.Reserve
}

// Result is the outcome of fetching a claimed line.
type Result struct {
	URL      string
	State    State     // Downloaded, Archived, Error or Disallowed; 0 returns the claim unfetched
	File     string    // new copy's path; "" keeps the line's file
	Modified time.Time // new copy's time; zero keeps the line's time
}

// Cycle is one locked pass: append new links, record results, take back
// dead spiders' claims, claim a batch. Fill in the inputs, call List.Run.
type Cycle struct {
	Spider     string          // the id of the spider running the pass
	Now        time.Time       // the pass's clock; zero means time.Now()
	Started    time.Time       // when the spider started, for its status
	Lease      time.Duration   // this spider's lease, published with its heartbeat; also used for claimants that published none; 0 = never
	Add        []Add           // links found since the last pass
	Results    []Result        // results of claims held by Spider
	ReleaseOwn bool            // take back every other claim held by Spider: first and last pass
	Pick       Picker          // nil claims nothing
	Extra      json.RawMessage // published in the spider's status

	Claimed []Entry    // output: the lines claimed, as they were before the claim
	Stats   CycleStats // output

	noStatus bool // a pass of no spider (Add): publish no status
	rewrite  bool // rewrite the whole file even if everything fits (Compact)
}

// Compact rewrites the whole list in one pass, restoring every line's
// padding (after hand edits, say); the list keeps its lines and their
// order. It is what a pass does when an update does not fit in place.
func (l *List) Compact(ctx context.Context) (CycleStats, error) {
	c := &Cycle{Spider: "compact", noStatus: true, rewrite: true}
	err := l.Run(ctx, c)
	return c.Stats, err
}

// Add appends the URLs the list does not hold yet and lowers the level of
// those it holds deeper (see the type Add), in one pass, and reports how
// many lines it appended and lowered (Stats.Added, Stats.Lowered). URLs
// must be canonical.
func (l *List) Add(ctx context.Context, adds []Add) (CycleStats, error) {
	c := &Cycle{Spider: "import", Add: adds, noStatus: true}
	err := l.Run(ctx, c)
	return c.Stats, err
}

// CycleStats describe one pass; they are published in the spider's status.
type CycleStats struct {
	At        time.Time `json:"at"`
	Lines     int       `json:"lines"`      // entries in the list after the pass
	Bytes     int64     `json:"bytes"`      // size of the list after the pass
	Added     int       `json:"added"`      // new lines appended
	Recorded  int       `json:"recorded"`   // results recorded
	Dropped   int       `json:"dropped"`    // results dropped: the claim had been taken back
	TakenBack int       `json:"taken_back"` // claims of dead or stalled spiders returned
	Due       int       `json:"due"`        // lines due for the picker, claimed or not
	Claimed   int       `json:"claimed"`    // lines claimed
	Lowered   int       `json:"lowered"`    // lines given a lower level by an Add
	WaitSec   float64   `json:"lock_wait_s"`
	HeldSec   float64   `json:"lock_held_s"`
	ScanSec   float64   `json:"scan_s"`     // of the lock held: reading and deciding
	WriteSec  float64   `json:"write_s"`    // of the lock held: journal, writes, fsyncs
	Rewrote   bool      `json:"rewrote"`    // the pass rewrote the whole file
	TornBytes int64     `json:"torn_bytes"` // bytes of a torn last line truncated
}

type pending struct {
	add    *Add
	res    *Result
	exists bool
}

type update struct {
	off    int64
	prefix int // length of the line's current prefix
	e      Entry
}

// Run performs the pass c under the list's lock.
func (l *List) Run(ctx context.Context, c *Cycle) error {
	if !ValidSpiderID(c.Spider) {
		return fmt.Errorf("list: invalid spider id %q", c.Spider)
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	for _, a := range c.Add {
		if a.Level < 0 || a.Level > MaxLevel {
			return fmt.Errorf("list: level %d of %s is outside 0..%d", a.Level, a.URL, MaxLevel)
		}
	}
	c.Claimed, c.Stats = nil, CycleStats{At: c.Now.UTC()}
	t0 := time.Now()
	unlock, err := l.lockList(ctx)
	if err != nil {
		return err
	}
	t1 := time.Now()
	defer func() {
		unlock()
		c.Stats.WaitSec = t1.Sub(t0).Seconds()
		c.Stats.HeldSec = time.Since(t1).Seconds()
	}()
	if err := l.create(); err != nil {
		return err
	}
	l.removeTemps()
	if err := l.pass(c); err != nil {
		return err
	}
	if c.noStatus {
		return nil
	}
	c.Stats.HeldSec = time.Since(t1).Seconds()
	st := &SpiderStatus{Spider: c.Spider, PID: os.Getpid(), Started: c.Started.UTC(), Heartbeat: c.Now.UTC(),
		LeaseSec: c.Lease.Seconds(), LastCycle: c.Stats, Extra: c.Extra}
	if err := writeStatus(l.path, st); err != nil {
		return fmt.Errorf("list: publish status: %w", err)
	}
	return nil
}

func (l *List) pass(c *Cycle) error {
	pend := make(map[string]*pending, len(c.Add)+len(c.Results))
	for i := range c.Add {
		a := &c.Add[i]
		if p := pend[a.URL]; p == nil {
			pend[a.URL] = &pending{add: a}
		} else if p.add == nil || a.Level < p.add.Level {
			p.add = a
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

	f, err := os.OpenFile(l.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	defer f.Close()
	if _, err := replayJournal(l.path, f); err != nil {
		return fmt.Errorf("list: replay journal: %w", err)
	}

	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	scanStart := time.Now()
	max := 0
	if c.Pick != nil {
		max = c.Pick.Max()
	}
	owners := &ownerCache{valid: map[string]bool{}}
	filter := newURLFilter(pend)
	var ws []*scanWorker
	end, torn, lines, _, err := forEntriesParallel(f, l.path, fi.Size(), func(int) func(int64, *view) error {
		k := &scanWorker{l: l, c: c, pend: pend, filter: filter, owners: owners, max: max, h: pickHeap{p: c.Pick}}
		ws = append(ws, k)
		return k.line
	})
	if err != nil {
		return err
	}
	// Merge the sections' findings, in file order.
	var updates []update
	h := &pickHeap{p: c.Pick}
	for _, k := range ws {
		base := len(updates)
		updates = append(updates, k.updates...)
		for _, it := range k.h.items {
			if it.upd >= 0 {
				it.upd += base
			}
			h.push(max, it)
		}
		for _, p := range k.matched {
			p.exists = true
		}
		c.Stats.Recorded += k.stats.Recorded
		c.Stats.Dropped += k.stats.Dropped
		c.Stats.TakenBack += k.stats.TakenBack
		c.Stats.Lowered += k.stats.Lowered
		c.Stats.Due += k.stats.Due
	}

	// New lines are candidates too: their offsets are past the end, in
	// the order they will be appended.
	var (
		fresh      []Entry
		freshWidth []int
	)
	for i := range c.Add {
		a := &c.Add[i]
		p := pend[a.URL]
		if p.exists || p.add != a {
			continue
		}
		p.exists = true
		fresh = append(fresh, Entry{Level: a.Level, State: Found, URL: a.URL})
		w := a.Width
		if w <= 0 {
			w = l.reserve(a.URL)
		}
		freshWidth = append(freshWidth, w)
		e := &fresh[len(fresh)-1]
		if c.Pick != nil && c.Pick.Due(e) {
			c.Stats.Due++
			h.offer(max, end+int64(len(fresh)-1), 0, e, false, -1)
		}
	}

	// Claim the batch: the heap holds the best lines, worst first.
	// Most urgent first. (sort.Sort compares the heap's own items: a
	// comparison of copies would put both on the heap, the Picker being an
	// interface.)
	sort.Sort(sort.Reverse(h))
	picked := h.items
	for _, it := range picked {
		c.Claimed = append(c.Claimed, it.e)
		e := it.e
		e.Spider = c.Spider
		if e.State == Found {
			e.State = Claimed
		}
		switch {
		case it.off >= end:
			fresh[it.off-end] = e // appended already claimed
		case it.upd >= 0:
			updates[it.upd].e = e // taken back and re-claimed in one pass
		default:
			updates = append(updates, update{off: it.off, prefix: it.prefix, e: e})
		}
	}
	c.Stats.Claimed = len(picked)

	var appendBuf []byte
	if end == 0 && len(fresh) > 0 {
		appendBuf = append(appendBuf, Header+"\n"...) // an empty (or all torn) file
	}
	for i := range fresh {
		appendBuf = AppendLine(appendBuf, &fresh[i], freshWidth[i])
	}
	c.Stats.Added = len(fresh)
	c.Stats.Lines = lines + c.Stats.Added
	c.Stats.TornBytes = torn

	writeStart := time.Now()
	c.Stats.ScanSec = writeStart.Sub(scanStart).Seconds()
	defer func() { c.Stats.WriteSec = time.Since(writeStart).Seconds() }()
	fits := true
	for i := range updates {
		u := &updates[i]
		if w := u.prefix - fixedWidth(u.e.Level); w < 1 || w < len(u.e.File) {
			fits = false
		}
	}
	switch {
	case !fits || c.rewrite:
		c.Stats.Rewrote = true
		err = l.rewrite(f, end, updates, appendBuf)
		c.Stats.Bytes = end + int64(len(appendBuf)) // approximate: padding was restored
		if fi, serr := os.Stat(l.path); serr == nil {
			c.Stats.Bytes = fi.Size()
		}
	case len(updates) > 0 || len(appendBuf) > 0 || torn > 0:
		err = writeInPlace(l.path, f, end, torn, updates, appendBuf)
		c.Stats.Bytes = end + int64(len(appendBuf))
	default:
		c.Stats.Bytes = end
	}
	if err != nil {
		return fmt.Errorf("list: write %s: %w", l.path, err)
	}
	return nil
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
		e.Modified = r.Modified.UTC().Truncate(time.Second)
	}
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
func (l *List) ownerValid(c *Cycle, cache *ownerCache, id string) (bool, error) {
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
	l       *List
	c       *Cycle
	pend    map[string]*pending // shared, read only
	filter  *urlFilter          // shared, read only: a quick "no" before pend
	owners  *ownerCache
	max     int
	updates []update
	h       pickHeap
	stats   CycleStats
	matched []*pending
	cur     Entry // one Entry for the section: passing it to the Picker must not allocate per line
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
		}
	}
	if changed {
		k.updates = append(k.updates, update{off: off, prefix: v.urlOff, e: e.Clone()})
	}
	if e.Spider == "" && c.Pick != nil && c.Pick.Due(e) {
		k.stats.Due++
		k.h.offer(k.max, off, v.urlOff, e, changed, len(k.updates)-1)
	}
	return nil
}

// writeInPlace journals the pass's writes, then truncates a torn tail,
// appends the new lines, rewrites the changed prefixes in place, fsyncs
// once and empties the journal. See journal.go for why.
func writeInPlace(path string, f *os.File, end, torn int64, updates []update, appendBuf []byte) error {
	slices.SortFunc(updates, func(a, b update) int { return cmp.Compare(a.off, b.off) })
	recs := make([]journalRec, 0, len(updates)+1)
	if len(appendBuf) > 0 {
		recs = append(recs, journalRec{off: end, data: appendBuf})
	}
	for i := range updates {
		u := &updates[i]
		b := appendPrefix(nil, &u.e, u.prefix-fixedWidth(u.e.Level))
		if len(b) != u.prefix {
			return fmt.Errorf("internal error: prefix %d bytes, want %d", len(b), u.prefix)
		}
		recs = append(recs, journalRec{off: u.off, data: b})
	}
	if err := writeJournal(path, end, recs); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if torn > 0 {
		if err := check("truncate list"); err != nil {
			return err
		}
		if err := f.Truncate(end); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if err := check("write list"); err != nil {
			return err
		}
		if _, err := f.WriteAt(r.data, r.off); err != nil {
			return err
		}
	}
	if err := check("fsync list"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return clearJournal(path, false)
}

// rewrite writes a new list with the updates and appends applied, every
// line with its padding restored, and renames it over the old one.
func (l *List) rewrite(f *os.File, end int64, updates []update, appendBuf []byte) error {
	// The list is consistent here (the journal was replayed at the start of
	// the pass); the journal's offsets will not describe the new file.
	if err := clearJournal(l.path, true); err != nil {
		return err
	}
	byOff := make(map[int64]*Entry, len(updates))
	for i := range updates {
		byOff[updates[i].off] = &updates[i].e
	}
	return writeAtomic(l.path, func(out *os.File) error {
		w := newBufWriter(out)
		_, _, err := scanLines(f, l.path, func(off int64, no int, line []byte) error {
			if off >= end {
				return nil
			}
			if no == 1 || len(line) == 0 || line[0] == '#' {
				w.write(line)
				w.write([]byte{'\n'})
				return nil
			}
			var v view
			if err := parseLine(line, &v); err != nil {
				return err // cannot happen: the pass parsed it
			}
			if u := byOff[off]; u != nil {
				width := len(u.File)
				if v.canonical {
					width = max(width, v.urlOff-fixedWidth(u.Level)) // keep its padding
				} else {
					width = max(width, l.reserve(u.URL))
				}
				w.buf = AppendLine(w.buf, u, width)
			} else if v.canonical {
				w.write(line) // already padded: copy as is
				w.write([]byte{'\n'})
				return nil
			} else {
				e := v.alias()
				w.buf = AppendLine(w.buf, &e, max(len(e.File), l.reserve(e.URL)))
			}
			w.flushIfFull()
			return nil
		})
		if err != nil {
			return err
		}
		w.write(appendBuf)
		return w.flush()
	})
}

var errShortWrite = errors.New("short write")

type bufWriter struct {
	f   *os.File
	buf []byte
	err error
}

func newBufWriter(f *os.File) *bufWriter { return &bufWriter{f: f, buf: make([]byte, 0, 1<<20)} }

func (w *bufWriter) write(b []byte) { w.buf = append(w.buf, b...); w.flushIfFull() }

func (w *bufWriter) flushIfFull() {
	if len(w.buf) >= 1<<20 {
		w.flush()
	}
}

func (w *bufWriter) flush() error {
	if w.err == nil && len(w.buf) > 0 {
		n, err := w.f.Write(w.buf)
		if err == nil && n != len(w.buf) {
			err = errShortWrite
		}
		w.err = err
	}
	w.buf = w.buf[:0]
	return w.err
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
