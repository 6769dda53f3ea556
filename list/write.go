package list

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// appendBuf returns the lines the plan appends, formatted, with the
// header first if the list has no complete line (an empty or all torn file).
func (p *plan) appendBuf() []byte {
	var b []byte
	if p.end == 0 && len(p.fresh) > 0 {
		b = append(b, Header+"\n"...)
	}
	for i := range p.fresh {
		b = AppendLine(b, &p.fresh[i], p.freshWidth[i])
	}
	return b
}

// write writes the plan p of the pass c: in place when every changed
// prefix fits its line, else by rewriting the whole list.
func (l locked) write(f *os.File, c *Cycle, p *plan, appendBuf []byte) error {
	fits := true
	for i := range p.updates {
		u := &p.updates[i]
		if w := u.prefix - fixedWidth(u.e.Level); w < 1 || w < len(u.e.File) {
			fits = false
		}
	}
	var err error
	switch {
	case !fits || c.rewrite:
		c.Stats.Rewrote = true
		err = l.rewrite(f, p.end, p.updates, appendBuf)
		c.Stats.Bytes = p.end + int64(len(appendBuf)) // approximate: padding was restored
		if fi, serr := os.Stat(l.path); serr == nil {
			c.Stats.Bytes = fi.Size()
		}
	case len(p.updates) > 0 || len(appendBuf) > 0 || p.torn > 0:
		err = l.writeInPlace(f, p.end, p.torn, p.updates, appendBuf)
		c.Stats.Bytes = p.end + int64(len(appendBuf))
	default:
		c.Stats.Bytes = p.end
	}
	if err != nil {
		return fmt.Errorf("list: write %s: %w", l.path, err)
	}
	return nil
}

// writeInPlace journals the pass's writes, then truncates a torn tail,
// appends the new lines, rewrites the changed prefixes in place, fsyncs
// once and empties the journal. See journal.go for why. The writes to the
// list are a write phase of the lock record (lockrec.go), for readers
// that read without the lock.
func (l locked) writeInPlace(f *os.File, end, torn int64, updates []update, appendBuf []byte) error {
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
	if err := writeJournal(l.path, end, recs); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := l.beginWrite(); err != nil {
		return fmt.Errorf("lock record: %w", err)
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
	if err := l.endWrite(); err != nil {
		return fmt.Errorf("lock record: %w", err)
	}
	return clearJournal(l.path, false)
}

// rewrite writes a new list with the updates and appends applied, every
// line with its padding restored, and renames it over the old one.
func (l locked) rewrite(f *os.File, end int64, updates []update, appendBuf []byte) error {
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
			if no == 1 {
				w.write([]byte(Header + "\n")) // a rewrite writes the current version
				return nil
			}
			if len(line) == 0 || line[0] == '#' {
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

// writeAtomic writes a new file at path through a temporary file in the same
// directory: write, fsync, close, rename, fsync the directory.
func writeAtomic(path string, write func(*os.File) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := check("write new list"); err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		return fmt.Errorf("list: write %s: %w", tmp.Name(), err)
	}
	if err := check("fsync new list"); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("list: fsync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("list: close %s: %w", tmp.Name(), err)
	}
	if err := check("rename new list"); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("list: %w", err)
	}
	ok = true
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("list: fsync %s: %w", dir, err)
	}
	return nil
}
