package list

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// The journal makes a pass's in-place writes atomic across power cuts. A
// pwrite of a line's prefix can be torn by a crash (a line spanning two
// disk sectors, half new, half old), and the page cache may reach the disk
// in any order. So a pass first writes everything it is about to write to
// LIST.journal and fsyncs it, then writes the list and fsyncs it, then
// empties the journal. A pass (and a reader) that finds a complete journal
// applies it again first: every record is "these bytes at this offset", so
// applying it twice changes nothing, and nothing else writes the list
// between two passes. A journal that is incomplete (bad checksum, short)
// was never followed by a write to the list and is ignored.
//
// Format: "spider-journal v1\n", then records of
// [8-byte offset][4-byte length][bytes], all little endian, then a trailer
// of [8-byte list size before the pass][32-byte SHA-256 of everything
// before the trailer]. The append of new lines is one record at the old
// end of the file, and replaying it also truncates the list to the end of
// the append (dropping a torn tail written after it).

const journalMagic = "spider-journal v1\n"

type journalRec struct {
	off  int64
	data []byte
}

func journalPath(list string) string { return list + ".journal" }

// encodeJournal returns the journal of a pass over a list of size end.
func encodeJournal(end int64, recs []journalRec) []byte {
	b := []byte(journalMagic)
	for _, r := range recs {
		b = binary.LittleEndian.AppendUint64(b, uint64(r.off))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r.data)))
		b = append(b, r.data...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(end))
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

var errJournalIncomplete = errors.New("journal incomplete")

// decodeJournal parses a journal; errJournalIncomplete means it was torn.
func decodeJournal(b []byte) (end int64, recs []journalRec, err error) {
	if len(b) < len(journalMagic)+8+32 || !bytes.HasPrefix(b, []byte(journalMagic)) {
		return 0, nil, errJournalIncomplete
	}
	body, sum := b[:len(b)-32], b[len(b)-32:]
	if want := sha256.Sum256(body); !bytes.Equal(sum, want[:]) {
		return 0, nil, errJournalIncomplete
	}
	end = int64(binary.LittleEndian.Uint64(body[len(body)-8:]))
	p := body[len(journalMagic) : len(body)-8]
	for len(p) > 0 {
		if len(p) < 12 {
			return 0, nil, errJournalIncomplete
		}
		off, n := int64(binary.LittleEndian.Uint64(p)), int(binary.LittleEndian.Uint32(p[8:]))
		if len(p) < 12+n || off < 0 {
			return 0, nil, errJournalIncomplete
		}
		recs = append(recs, journalRec{off: off, data: p[12 : 12+n]})
		p = p[12+n:]
	}
	return end, recs, nil
}

// writeJournal replaces the journal with recs and fsyncs it.
func writeJournal(path string, end int64, recs []journalRec) error {
	j, err := os.OpenFile(journalPath(path), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer j.Close()
	b := encodeJournal(end, recs)
	if err := check("write journal"); err != nil {
		return err
	}
	if _, err := j.WriteAt(b, 0); err != nil {
		return err
	}
	if err := j.Truncate(int64(len(b))); err != nil {
		return err
	}
	if err := check("fsync journal"); err != nil {
		return err
	}
	return j.Sync()
}

// clearJournal empties the journal. With sync, the emptiness is durable
// (needed before a rewrite renames a new list into place, whose offsets
// the old journal does not describe).
func clearJournal(path string, sync bool) error {
	j, err := os.OpenFile(journalPath(path), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer j.Close()
	if err := check("clear journal"); err != nil {
		return err
	}
	if err := j.Truncate(0); err != nil {
		return err
	}
	if sync {
		return j.Sync()
	}
	return nil
}

// replayJournal applies a complete journal left by a pass that may not have
// finished to the list open as f, fsyncs the list, and empties the
// journal. It reports whether it applied one. A pass calls it before it
// reads the list.
func (l locked) replayJournal(f *os.File) (bool, error) {
	path := l.path
	b, err := os.ReadFile(journalPath(path))
	if errors.Is(err, os.ErrNotExist) || err == nil && len(b) == 0 {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	end, recs, err := decodeJournal(b)
	if errors.Is(err, errJournalIncomplete) {
		return false, clearJournal(path, true) // its pass never wrote the list
	}
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if fi.Size() < end {
		return false, fmt.Errorf("journal %s describes a list of %d bytes, the list has %d: was the list replaced by hand? move the journal away to go on", journalPath(path), end, fi.Size())
	}
	if err := l.beginWrite(); err != nil {
		return false, fmt.Errorf("lock record: %w", err)
	}
	newEnd := end
	for _, r := range recs {
		if _, err := f.WriteAt(r.data, r.off); err != nil {
			return false, err
		}
		newEnd = max(newEnd, r.off+int64(len(r.data)))
	}
	// The pass's append ends the file: drop anything torn after it.
	if fi.Size() > newEnd {
		if err := truncateTorn(f, newEnd); err != nil {
			return false, err
		}
	}
	if err := f.Sync(); err != nil {
		return false, err
	}
	if err := l.endWrite(); err != nil {
		return false, fmt.Errorf("lock record: %w", err)
	}
	return true, clearJournal(path, false)
}

// truncateTorn cuts the list at size, which must fall at a line start.
func truncateTorn(f *os.File, size int64) error {
	if size > 0 {
		var c [1]byte
		if _, err := f.ReadAt(c[:], size-1); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if c[0] != '\n' {
			return fmt.Errorf("journal end %d is not at a line start", size)
		}
	}
	return f.Truncate(size)
}
