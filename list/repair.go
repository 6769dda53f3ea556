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
	var rep RepairReport
	unlock, err := l.lockList(ctx)
	if err != nil {
		return rep, err
	}
	defer unlock()
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
	var rejected []byte
	seed := maphash.MakeSeed()
	first := map[uint64]int64{} // URL hash -> offset of its first line
	if err := clearJournal(l.path, true); err != nil {
		return rep, err
	}
	err = writeAtomic(l.path, func(out *os.File) error {
		w := newBufWriter(out)
		w.write([]byte(Header + "\n"))
		var v view
		_, _, err := scanLines(f, l.path, func(off int64, no int, line []byte) error {
			switch {
			case no == 1 && checkHeader(l.path, line) == nil:
				return nil // the header was written above
			case no == 1 && bytes.HasPrefix(line, []byte("# spider-list v")):
				return fmt.Errorf("%s is a spider list of another version (%q): not repairing it", l.path, clip(line))
			case no > 1 && (len(line) == 0 || line[0] == '#'):
				w.write(line) // blank lines and comments stay
				w.write([]byte{'\n'})
				return nil
			}
			if err := parseLine(line, &v); err != nil {
				rep.Rejected++
				rejected = append(append(rejected, line...), '\n')
				return nil
			}
			h := maphash.Bytes(seed, v.url)
			if at, ok := first[h]; ok {
				same, err := sameURL(f, at, v.url)
				if err != nil {
					return err
				}
				if same {
					rep.Duplicates++
					return nil
				}
			} else {
				first[h] = off
			}
			e := v.alias()
			if e.Spider != "" && !running(e.Spider) {
				release(&e)
				rep.Released++
			}
			if e.File != "" && missing(e.File) {
				e.File = ""
				if e.State != Archived && e.State != Disallowed { // their time is the last check, not the copy's
					e.State, e.Modified = Found, time.Time{}
					if e.Spider != "" {
						e.State = Claimed
					}
				}
				rep.Reset++
			}
			width := l.reserve(e.URL)
			if v.canonical {
				width = max(width, v.urlOff-fixedWidth(v.level))
			}
			w.buf = AppendLine(w.buf, &e, max(width, len(e.File)))
			w.flushIfFull()
			return nil
		})
		if err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return rep, err
	}
	if len(rejected) > 0 {
		if err := appendSync(l.path+".rejected", rejected); err != nil {
			return rep, fmt.Errorf("list: keep rejected lines: %w (they are in %s)", err, rep.Backup)
		}
	}
	return rep, nil
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
