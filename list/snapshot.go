package list

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Readers (Scan, ScanChunk) read the list without its lock, so that a
// holder stopped in the middle of a pass (SIGSTOP, swapped out, a hung
// disk) cannot stop spider status, show or list check. What makes it safe:
//
//   - A pass changes the list in place only in a write phase, announced in
//     the lock record (lockrec.go) after its journal is complete and
//     durable; every other change is a new file renamed over the list.
//   - A reader reads the list in blocks. For each block it reads the
//     record's generation, the journal (once per generation), the block,
//     with a complete journal's records laid over it, and the generation
//     again. An unchanged generation means no write phase began or ended
//     during the read, and a complete journal covers every byte a phase in
//     progress (or one that died) writes: the block is the list as it is
//     after that pass. A changed generation reads the block again.
//   - Once the list has been renamed over, the file the reader has open is
//     never written again: it reads it as it is.
//
// So every line a reader sees is one that a complete pass wrote; lines of
// different blocks may be as of different passes, as they always were for
// a read in chunks.

// maxRereads bounds how often a block is read again because passes kept
// writing the list meanwhile.
const maxRereads = 1000

// stableReader reads the list's file f without the lock; see above.
type stableReader struct {
	ctx    context.Context
	path   string
	f      *os.File
	size   int64 // the file as of the open: with a complete journal, as the journal leaves it
	frozen bool  // f was renamed over: it no longer changes

	gen    string       // the generation recs were read at (genOf)
	loaded bool         // recs were read at gen
	recs   []journalRec // a complete journal's records, or none
	end    int64        // the size the journal leaves the list at
}

// openStable opens the list for a read without the lock; nil if it does
// not exist.
func openStable(ctx context.Context, path string) (*stableReader, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	r := &stableReader{ctx: ctx, path: path, f: f}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("list: %w", err)
	}
	r.size = fi.Size()
	// Size the read by the journal, if one is complete now.
	gen, err := genOf(path)
	if err == nil {
		err = r.load(gen)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("list: read %s: %w", path, err)
	}
	if len(r.recs) > 0 {
		r.size = r.end
	}
	return r, nil
}

// genOf returns the generation of the lock record (lockrec.go) of the
// list at path, as a string to compare. A record that does not parse (one
// read while it was written, or one a power cut left torn) stands for
// itself: a holder rewrites it whole when it takes the lock, so as long
// as it reads the same, nothing was written.
func genOf(path string) (string, error) {
	b, err := os.ReadFile(recordPath(path))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if len(b) == 0 {
		return "0", nil
	}
	rec, err := parseRecord(b)
	if err != nil {
		return "torn " + string(b), nil
	}
	return strconv.FormatUint(rec.gen, 10), nil
}

func (r *stableReader) Close() error { return r.f.Close() }

// load reads the journal as of generation gen, once per generation.
func (r *stableReader) load(gen string) error {
	if r.loaded && r.gen == gen {
		return nil
	}
	b, err := os.ReadFile(journalPath(r.path))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	r.gen, r.loaded, r.recs, r.end = gen, true, nil, 0
	if len(b) == 0 {
		return nil
	}
	end, recs, err := decodeJournal(b)
	if err != nil {
		return nil // incomplete: its pass has not touched the list
	}
	r.recs, r.end = recs, end
	for _, rc := range recs {
		r.end = max(r.end, rc.off+int64(len(rc.data)))
	}
	return nil
}

// ReadAt reads the block at off as a complete pass left it.
func (r *stableReader) ReadAt(p []byte, off int64) (int, error) {
	for try := 0; ; try++ {
		if r.frozen {
			return r.f.ReadAt(p, off)
		}
		n, ok, err := r.tryRead(p, off)
		if ok || err != nil {
			return n, err
		}
		if try == maxRereads {
			return 0, fmt.Errorf("the list kept changing while it was read (%d times); try again", maxRereads)
		}
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
	}
}

// tryRead reads the block once; ok is false if it must be read again.
func (r *stableReader) tryRead(p []byte, off int64) (n int, ok bool, err error) {
	before, err := genOf(r.path)
	if err != nil {
		return 0, false, err
	}
	if err := r.load(before); err != nil {
		return 0, false, err
	}
	if readSeam != nil {
		readSeam()
	}
	n, err = r.f.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, false, err
	}
	if len(r.recs) > 0 {
		clear(p[n:])
		n = int(max(0, min(int64(len(p)), r.end-off)))
		overlay(p, off, r.recs)
	}
	after, err := genOf(r.path)
	if err != nil || after != before {
		return 0, false, err
	}
	if cur, err := os.Stat(r.path); err == nil {
		if fi, err := r.f.Stat(); err == nil && !os.SameFile(cur, fi) {
			r.frozen = true // the journal may describe the new file: read ours as it is
			return 0, false, nil
		}
	}
	if n < len(p) {
		return n, true, io.EOF
	}
	return n, true, nil
}

// overlay lays the journal's records over the block p read at off.
func overlay(p []byte, off int64, recs []journalRec) {
	for _, rc := range recs {
		lo, hi := max(off, rc.off), min(off+int64(len(p)), rc.off+int64(len(rc.data)))
		if lo < hi {
			copy(p[lo-off:hi-off], rc.data[lo-rc.off:hi-rc.off])
		}
	}
}
