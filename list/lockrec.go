package list

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// The lock file LIST.lock holds one line, rewritten in place by the holder
// of the lock with a single pwrite of constant length:
//
//	spider-lock v1 gen GGGGGGGGGGGGGGGGGGGG pid PPPPPPPPPP since SSSSSSSSSSSSSSSSSSSS
//
// pid and since (Unix nanoseconds) name the process holding the lock and
// when it took it, both 0 when it is free: a spider waiting for the lock
// can say who holds it. gen is a sequence lock (a seqlock) that lets
// readers read the list without taking its lock: it is odd exactly while
// a pass writes the list in place, and every such write phase gets a new
// odd value. A write phase starts only once the pass's journal is
// complete and durable, and the journal is emptied only after the phase
// has ended, so a journal read during an odd phase describes every byte
// the phase writes. A reader (snapshot.go) reads gen, the journal, the
// list with the journal's records laid over it, and gen again: if gen did
// not change, what it read is the list as of the end of a pass. The line
// is advisory and never fsynced: a reader that finds it torn or changed
// reads again, and after a crash the list's own write ordering (list.go)
// is what makes the list safe.
const recordFormat = "spider-lock v1 gen %020d pid %010d since %020d\n"

var recordLen = len(fmt.Sprintf(recordFormat, 0, 0, 0))

// record is the content of the lock file.
type lockRecord struct {
	gen   uint64
	pid   int
	since int64
}

// Holder is the process holding the list's lock, as it wrote beside it.
type Holder struct {
	PID   int
	Since time.Time
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "held by a process that did not say which"
	}
	return fmt.Sprintf("held by pid %d since %s (%s)", h.PID, h.Since.UTC().Format(time.RFC3339),
		time.Since(h.Since).Round(time.Second))
}

func recordPath(list string) string { return list + ".lock" }

// readRecord reads the lock file. An empty or absent file (no pass yet, or
// a list written by an older spider) is the zero record; a malformed one
// (a read that raced a write) is an error.
func readRecord(list string) (lockRecord, error) {
	b, err := os.ReadFile(recordPath(list))
	if errors.Is(err, os.ErrNotExist) || err == nil && len(b) == 0 {
		return lockRecord{}, nil
	}
	if err != nil {
		return lockRecord{}, err
	}
	return parseRecord(b)
}

var errRecord = errors.New("lock record malformed")

func parseRecord(b []byte) (lockRecord, error) {
	f := bytes.Fields(b)
	if len(b) != recordLen || len(f) != 8 || string(f[0]) != "spider-lock" || string(f[1]) != "v1" ||
		string(f[2]) != "gen" || string(f[4]) != "pid" || string(f[6]) != "since" {
		return lockRecord{}, errRecord
	}
	gen, err1 := strconv.ParseUint(string(f[3]), 10, 64)
	pid, err2 := strconv.Atoi(string(f[5]))
	since, err3 := strconv.ParseInt(string(f[7]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return lockRecord{}, errRecord
	}
	return lockRecord{gen: gen, pid: pid, since: since}, nil
}

// readHolder returns who holds the list's lock, as written beside it; the
// zero Holder if the line names nobody.
func (l *List) readHolder() (Holder, error) {
	r, err := readRecord(l.path)
	if err != nil || r.pid == 0 {
		return Holder{}, err
	}
	return Holder{PID: r.pid, Since: time.Unix(0, r.since)}, nil
}

// Holder reports whether a process holds the list's lock now, and which
// one if it said so. It does not wait: a reader can tell a user that a
// stalled holder is keeping the spiders waiting.
func (l *List) Holder() (Holder, bool, error) {
	held, err := heldByOther(recordPath(l.path))
	if err != nil || !held {
		return Holder{}, false, err
	}
	h, err := l.readHolder()
	return h, true, err
}

// writeRecord writes the record of the locked list.
func (l locked) writeRecord() error {
	if l.rec == nil {
		f, err := os.OpenFile(recordPath(l.path), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		if err := f.Truncate(int64(recordLen)); err != nil {
			f.Close()
			return err
		}
		l.rec = f
	}
	b := fmt.Appendf(nil, recordFormat, l.cur.gen, l.cur.pid, l.cur.since)
	_, err := l.rec.WriteAt(b, 0)
	return err
}

// claimRecord writes this process as the holder, keeping the generation.
// A malformed record (torn by a power cut) restarts the generation from
// the clock.
func (l locked) claimRecord(at time.Time) error {
	r, err := readRecord(l.path)
	if err != nil {
		r = lockRecord{gen: uint64(time.Now().UnixNano()) &^ 1}
	}
	l.cur = lockRecord{gen: r.gen, pid: os.Getpid(), since: at.UnixNano()}
	return l.writeRecord()
}

// releaseRecord writes that nobody holds the lock; the lock is still held.
// A failure is harmless: the next holder overwrites the line.
func (l locked) releaseRecord() {
	l.cur.pid, l.cur.since = 0, 0
	l.writeRecord()
}

// beginWrite starts a write phase: the list is about to be changed in
// place, and the journal describing the change is complete and durable.
func (l locked) beginWrite() error {
	if l.cur.gen%2 == 0 {
		l.cur.gen++
	} else {
		l.cur.gen += 2 // left odd by a crash: a new value all the same
	}
	return l.writeRecord()
}

// endWrite ends a write phase; the journal may be emptied after it.
func (l locked) endWrite() error {
	l.cur.gen++
	return l.writeRecord()
}
