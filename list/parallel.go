package list

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// A pass over a large list reads it in sections, one per CPU, each with
// its own reader: parsing, not the disk, bounds a pass over a list in the
// page cache, and a list of millions of lines must be passed over in about
// the time it takes to read it. Sections start at line starts; results are
// merged in file order, so a parallel pass decides exactly what a
// sequential one would.

// parallelMin is the size under which a list is read in one section, and
// scanSections the number of sections of a larger one (tests change both).
var (
	parallelMin  int64 = 8 << 20
	scanSections       = func() int { return runtime.GOMAXPROCS(0) }
)

// section is a byte range of the list that starts at a line start.
type section struct{ start, stop int64 }

// sections splits a file of size bytes into n sections at line starts.
func sections(f *os.File, size int64, n int) ([]section, error) {
	if n < 2 || size < parallelMin {
		return []section{{0, size}}, nil
	}
	cuts := []int64{0}
	buf := make([]byte, MaxLine+1)
	for k := 1; k < n; k++ {
		guess := size * int64(k) / int64(n)
		if guess <= cuts[len(cuts)-1] {
			continue
		}
		m, err := f.ReadAt(buf, guess)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		i := bytes.IndexByte(buf[:m], '\n')
		if i < 0 {
			break // a line longer than MaxLine, or the tail: the last section reports it
		}
		cuts = append(cuts, guess+int64(i)+1)
	}
	var out []section
	for i, c := range cuts {
		stop := size
		if i+1 < len(cuts) {
			stop = cuts[i+1]
		}
		if stop > c {
			out = append(out, section{c, stop})
		}
	}
	if len(out) == 0 {
		out = []section{{0, size}}
	}
	return out, nil
}

// sectionLines calls fn for every line of the section, without its
// newline, with the line's offset in the file and its number within the
// section (from 1). It returns the offset just past the section's last
// complete line and the length of a torn tail (only the file's last
// section can have one).
func sectionLines(f io.ReaderAt, path string, s section, fn func(off int64, no int, line []byte) error) (end, torn int64, err error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, s.start, s.stop-s.start), readBuf)
	off := s.start
	for no := 1; ; no++ {
		line, err := r.ReadSlice('\n')
		switch {
		case err == nil:
			if ferr := fn(off, no, line[:len(line)-1]); ferr != nil {
				return off, 0, ferr
			}
			off += int64(len(line))
		case errors.Is(err, io.EOF):
			return off, int64(len(line)), nil
		case errors.Is(err, bufio.ErrBufferFull):
			return off, 0, &ParseError{Path: path, Line: no, Err: fmt.Errorf("%w: longer than %d bytes", errFormat, r.Size())}
		default:
			return off, 0, fmt.Errorf("list: read %s: %w", path, err)
		}
	}
}

// sectionResult is what one section's scan found.
type sectionResult struct {
	end, torn int64
	lines     int
	err       error
}

// forEntriesParallel calls the fn that newFn returns for worker w with
// every entry line of section w, on one goroutine per section. A
// *ParseError's line number is made absolute.
func forEntriesParallel(f *os.File, path string, size int64, newFn func(w int) func(off int64, v *view) error) (end, torn int64, lines int, err error) {
	secs, err := sections(f, size, scanSections())
	if err != nil {
		return 0, 0, 0, fmt.Errorf("list: read %s: %w", path, err)
	}
	res := make([]sectionResult, len(secs))
	var wg sync.WaitGroup
	for w, s := range secs {
		fn := newFn(w)
		wg.Go(func() {
			var v view
			r := &res[w]
			r.end, r.torn, r.err = sectionLines(f, path, s, func(off int64, no int, line []byte) error {
				if off == 0 {
					return checkHeader(path, line)
				}
				if len(line) == 0 || line[0] == '#' {
					return nil
				}
				if err := parseLine(line, &v); err != nil {
					return &ParseError{Path: path, Line: no, Err: err}
				}
				r.lines++
				return fn(off, &v)
			})
		})
	}
	wg.Wait()
	for w, r := range res {
		if r.err != nil {
			var pe *ParseError
			if errors.As(r.err, &pe) && secs[w].start > 0 {
				before, cerr := countLines(f, secs[w].start)
				if cerr != nil {
					return 0, 0, 0, cerr
				}
				pe.Line += before
			}
			return 0, 0, 0, r.err
		}
		lines += r.lines
	}
	last := res[len(res)-1]
	for w := range res[:len(res)-1] {
		if res[w].torn > 0 || res[w].end != secs[w].stop {
			return 0, 0, 0, fmt.Errorf("list: internal error: section %d ends at %d, not %d", w, res[w].end, secs[w].stop)
		}
	}
	return last.end, last.torn, lines, nil
}

// countLines counts the lines in the first n bytes of f.
func countLines(f io.ReaderAt, n int64) (int, error) {
	count := 0
	buf := make([]byte, readBuf)
	for off := int64(0); off < n; {
		m, err := f.ReadAt(buf[:min(int64(len(buf)), n-off)], off)
		count += bytes.Count(buf[:m], []byte{'\n'})
		off += int64(m)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if m == 0 {
			break
		}
	}
	return count, nil
}
