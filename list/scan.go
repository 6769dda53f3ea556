package list

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// readBuf is the read buffer of a scan: small enough to stay in the CPU's
// cache while its lines are parsed, large enough for any line (MaxLine).
const readBuf = 256 << 10

// scanLines calls fn for every line of f from the start (header, comments
// and blank lines included), without the newline. It returns the offset
// just past the last complete line and the length of a torn tail.
func scanLines(f *os.File, path string, fn func(off int64, no int, line []byte) error) (end, torn int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("list: %w", err)
	}
	return sectionLines(f, path, section{0, fi.Size()}, fn)
}

// checkHeader validates line 1.
func checkHeader(path string, line []byte) error {
	if !bytes.HasPrefix(line, []byte("# spider-list v")) {
		return &ParseError{Path: path, Line: 1, Err: errors.New("not a spider list: missing header " + Header)}
	}
	v1 := bytes.HasPrefix(line, []byte("# spider-list v1:")) || bytes.Equal(line, []byte("# spider-list v1"))
	if !v1 && !bytes.HasPrefix(line, []byte("# spider-list v2:")) && !bytes.Equal(line, []byte("# spider-list v2")) {
		return &ParseError{Path: path, Line: 1, Err: fmt.Errorf("unsupported list version %q", clip(line))}
	}
	return nil
}

// forEntries calls fn with every entry line of the first size bytes of
// r, parsed into v. Headers, comments and blank lines are skipped; a bad
// header or line stops the scan with a *ParseError.
func forEntries(r io.ReaderAt, path string, size int64, fn func(off int64, v *view) error) (end, torn int64, lines int, err error) {
	var v view
	end, torn, err = sectionLines(r, path, section{0, size}, func(off int64, no int, line []byte) error {
		if no == 1 {
			return checkHeader(path, line)
		}
		if len(line) == 0 || line[0] == '#' {
			return nil
		}
		if err := parseLine(line, &v); err != nil {
			return &ParseError{Path: path, Line: no, Err: err}
		}
		lines++
		return fn(off, &v)
	})
	return end, torn, lines, err
}

// Scan calls fn for every entry of the list, in file order. It reads
// without the lock (see snapshot.go), so a stalled pass cannot hold it up:
// every line it sees is as a complete pass left it, and the lines it sees
// are those the list had when it started. The *Entry passed to fn is
// valid only during the call (its strings share the read buffer); Clone
// it to keep it.
func (l *List) Scan(ctx context.Context, fn func(e *Entry) error) error {
	r, err := openStable(ctx, l.path)
	if r == nil {
		return err
	}
	defer r.Close()
	var e Entry // reused: fn must not keep it (see above)
	_, _, _, err = forEntries(r, l.path, r.size, func(_ int64, v *view) error {
		e = v.alias()
		return fn(&e)
	})
	return err
}

// ErrReplaced reports that the list file was replaced (rewritten by a
// pass whose update did not fit, or by Compact) between two chunks of a
// chunked read: offsets from before do not describe it.
var ErrReplaced = errors.New("list: the list was rewritten during the read; run it again")

// ScanChunk reads the complete lines that start at offset off and end
// within max bytes of it (at least one line), without the lock as Scan
// does, and calls fn for each entry, in order; it returns the offset to
// continue from, equal to off at the end of the list. Lines never move
// while the list is updated in place, so a reader can take the list in
// chunks; if the file was replaced meanwhile, it returns ErrReplaced. The
// *Entry is valid only during the call. One chunked read at a time per
// List.
func (l *List) ScanChunk(ctx context.Context, off int64, max int, fn func(e *Entry) error) (int64, error) {
	r, err := openStable(ctx, l.path)
	if r == nil {
		return off, err
	}
	defer r.Close()
	fi, err := r.f.Stat()
	if err != nil {
		return off, fmt.Errorf("list: %w", err)
	}
	if off == 0 {
		l.chunkFile = fi
	} else if l.chunkFile == nil || !os.SameFile(l.chunkFile, fi) {
		return off, ErrReplaced
	}
	stop := min(r.size, off+int64(max))
	var v view
	var e Entry
	next := off
	_, _, err = sectionLines(r, l.path, section{off, r.size}, func(o int64, no int, line []byte) error {
		if o > off && o+int64(len(line)) >= stop {
			return errChunkFull
		}
		next = o + int64(len(line)) + 1
		if o == 0 {
			return checkHeader(l.path, line)
		}
		if len(line) == 0 || line[0] == '#' {
			return nil
		}
		if err := parseLine(line, &v); err != nil {
			return &ParseError{Path: l.path, Line: no, Err: err} // made absolute below
		}
		e = v.alias()
		return fn(&e)
	})
	var pe *ParseError
	if errors.As(err, &pe) && off > 0 {
		before, cerr := countLines(r, off)
		if cerr != nil {
			return off, cerr
		}
		pe.Line += before
	}
	if err != nil && !errors.Is(err, errChunkFull) {
		return off, err
	}
	return next, nil
}

var errChunkFull = errors.New("chunk full")

// replayPending finishes a pass that died mid-write (its journal is
// complete) before a reader reads.
func (l locked) replayPending() error {
	if fi, err := os.Stat(journalPath(l.path)); err != nil || fi.Size() == 0 {
		return nil
	}
	rw, err := os.OpenFile(l.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("list: replay journal: %w", err)
	}
	defer rw.Close()
	if _, err := l.replayJournal(rw); err != nil {
		return fmt.Errorf("list: replay journal: %w", err)
	}
	return nil
}
