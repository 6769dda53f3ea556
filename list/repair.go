package list

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"time"
)

// RepairReport says what Repair did.
type RepairReport struct {
	Backup     string // copy of the list as it was
	Rejected   int    // malformed lines moved to LIST.rejected
	Duplicates int    // later lines of a URL that already had one, dropped
	Released   int    // claims of spiders not running, returned
	Reset      int    // lines whose copy is missing, set back to found
}

// Repair rewrites the list, under its lock, so that every pass can read it
// and it holds each URL once. First it copies the list to
// LIST.bak-YYYYMMDDTHHMMSS (fsynced), so nothing is ever lost:
//
//   - a malformed line is moved, as it was, to LIST.rejected;
//   - of several lines of one URL the first is kept;
//   - a claim whose spider is not running is returned to the pool;
//   - a line whose copy is missing (missing(file) reports true) loses its
//     file and becomes found (archived lines stay archived), so it is
//     fetched again.
//
// The rewrite itself is atomic (temporary file, fsync, rename, fsync of
// the directory). Memory grows with the list by 16 bytes a line.
func (l *List) Repair(ctx context.Context, running func(spider string) bool, missing func(file string) bool) (RepairReport, error) {
	lk, unlock, err := l.lockList(ctx)
	if err != nil {
		return RepairReport{}, err
	}
	defer unlock()
	return lk.repair(running, missing)
}

func (l locked) repair(running func(spider string) bool, missing func(file string) bool) (RepairReport, error) {
	var rep RepairReport
	if err := l.replayPending(); err != nil {
		return rep, err
	}
	f, err := os.Open(l.path)
	if err != nil {
		return rep, fmt.Errorf("list: %w", err)
	}
	defer f.Close()
	rep.Backup = l.path + ".bak-" + time.Now().UTC().Format("20060102T150405")
	if err := copyFile(f, rep.Backup); err != nil {
		return rep, fmt.Errorf("list: backup: %w", err)
	}
	if err := clearJournal(l.path, true); err != nil {
		return rep, err
	}
	r := &repairer{l: l, f: f, running: running, missing: missing, rep: &rep,
		seed: maphash.MakeSeed(), first: map[uint64]int64{}}
	if err := writeAtomic(l.path, r.write); err != nil {
		return rep, err
	}
	if len(r.rejected) > 0 {
		if err := appendSync(l.path+".rejected", r.rejected); err != nil {
			return rep, fmt.Errorf("list: keep rejected lines: %w (they are in %s)", err, rep.Backup)
		}
	}
	return rep, nil
}

// repairer is the state of one Repair's rewrite of the list.
type repairer struct {
	l        locked
	f        *os.File // the list as it was
	running  func(spider string) bool
	missing  func(file string) bool
	rep      *RepairReport
	rejected []byte // malformed lines, each with its newline
	seed     maphash.Seed
	first    map[uint64]int64 // URL hash -> offset of its first line
	w        *bufWriter
	v        view
}

// write writes the repaired list to out.
func (r *repairer) write(out *os.File) error {
	r.w = newBufWriter(out)
	r.w.write([]byte(Header + "\n"))
	if _, _, err := scanLines(r.f, r.l.path, r.line); err != nil {
		return err
	}
	return r.w.flush()
}

// line writes line number no, at offset off, repaired, or sets it aside.
func (r *repairer) line(off int64, no int, line []byte) error {
	switch {
	case no == 1 && checkHeader(r.l.path, line) == nil:
		return nil // the header was written first
	case no == 1 && bytes.HasPrefix(line, []byte("# spider-list v")):
		return fmt.Errorf("%s is a spider list of another version (%q): not repairing it", r.l.path, clip(line))
	case no > 1 && (len(line) == 0 || line[0] == '#'):
		r.w.write(line) // blank lines and comments stay
		r.w.write([]byte{'\n'})
		return nil
	}
	v := &r.v
	if err := parseLine(line, v); err != nil {
		r.rep.Rejected++
		r.rejected = append(append(r.rejected, line...), '\n')
		return nil
	}
	if dup, err := r.duplicate(off, v.url); err != nil || dup {
		return err
	}
	e := v.alias()
	r.fix(&e)
	width := r.l.reserve(e.URL)
	if v.canonical {
		width = max(width, v.urlOff-fixedWidth(v.level))
	}
	r.w.buf = AppendLine(r.w.buf, &e, max(width, len(e.File)))
	r.w.flushIfFull()
	return nil
}

// duplicate reports whether an earlier line holds url; if none does, the
// line at off is url's first.
func (r *repairer) duplicate(off int64, url []byte) (bool, error) {
	h := maphash.Bytes(r.seed, url)
	at, ok := r.first[h]
	if !ok {
		r.first[h] = off
		return false, nil
	}
	same, err := sameURL(r.f, at, url)
	if same {
		r.rep.Duplicates++
	}
	return same, err
}

// fix returns the claim of a spider that is not running, and resets a line
// whose copy is missing so that it is fetched again.
func (r *repairer) fix(e *Entry) {
	if e.Spider != "" && !r.running(e.Spider) {
		release(e)
		r.rep.Released++
	}
	if e.File != "" && r.missing(e.File) {
		e.File = ""
		if e.State != Archived && e.State != Disallowed { // their time is the last check, not the copy's
			e.State, e.Modified = Found, time.Time{}
			if e.Spider != "" {
				e.State = Claimed
			}
		}
		r.rep.Reset++
	}
}

// sameURL reports whether the line at off holds url (two lines whose URL
// hashes collide are compared exactly).
func sameURL(f *os.File, off int64, url []byte) (bool, error) {
	buf := make([]byte, MaxLine)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	line := buf[:n]
	if i := indexNewline(line); i >= 0 {
		line = line[:i]
	}
	var v view
	if parseLine(line, &v) != nil {
		return false, nil
	}
	return string(v.url) == string(url), nil
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func copyFile(src *os.File, dst string) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.NewSectionReader(src, 0, 1<<62)); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func appendSync(path string, b []byte) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
