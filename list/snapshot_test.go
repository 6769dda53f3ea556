package list

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// reopen opens the list of l a second time: another process's view, with
// a lock of its own.
func reopen(t *testing.T, l *List) *List {
	t.Helper()
	o, err := Open(l.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A holder that keeps the lock (a spider stopped mid-pass) does not keep
// readers waiting, and readers can tell who holds it.
func TestReadersDoNotWaitForTheLock(t *testing.T) {
	base := strings.Replace(faultBase, "- - 1 found - http://h/squeezed\n", "", 1)
	l := listAt(t, base)
	want := entries(t, l)
	_, unlock, err := reopen(t, l).lockList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []Entry
	if err := l.Scan(ctx, func(e *Entry) error { got = append(got, e.Clone()); return nil }); err != nil {
		t.Fatalf("Scan while the lock is held: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Scan: %v, want %v", got, want)
	}
	n := 0
	if _, err := l.ScanChunk(ctx, 0, 1<<20, func(*Entry) error { n++; return nil }); err != nil || n != len(want) {
		t.Errorf("ScanChunk while the lock is held: %d entries, %v", n, err)
	}
	h, held, err := l.Holder()
	if err != nil || !held || h.PID != os.Getpid() || time.Since(h.Since) > time.Minute {
		t.Errorf("Holder = %+v, %v, %v; want this process, held", h, held, err)
	}
}

// A holder's wait for the lock ends with its context, naming the holder,
// and a long wait is reported while it lasts.
func TestLockWaitHonoursContextAndReports(t *testing.T) {
	l := listAt(t, faultBase)
	_, unlock, err := reopen(t, l).lockList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var waits []LockWait
	w, err := Open(l.Path(), Options{WaitReport: 20 * time.Millisecond, OnWait: func(lw LockWait) { waits = append(waits, lw) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	err = w.Run(ctx, &Cycle{Spider: "b"})
	took := time.Since(began)
	// The wait is timed from the lock's first try, a little after the
	// context's clock started: it ends at the deadline, not before.
	var lw *LockWaitError
	if !errors.As(err, &lw) || lw.Holder.PID != os.Getpid() || lw.Waited < 150*time.Millisecond || lw.Waited > took {
		t.Fatalf("Run = %v, want a LockWaitError naming this process", err)
	}
	if !strings.Contains(err.Error(), "held by pid") {
		t.Errorf("error %q does not name the holder", err)
	}
	// Reports are due at 20, 40, 80 and 160 ms; a busy machine may make
	// the wait end before the later ones.
	if len(waits) == 0 || len(waits) > 4 || waits[0].Holder.PID != os.Getpid() || waits[0].Waited < 20*time.Millisecond {
		t.Errorf("reports: %+v, want 1 to 4 naming this process", waits)
	}
	for i, w := range waits {
		if due := 20 * time.Millisecond << i; w.Waited < due {
			t.Errorf("report %d after %v, due after %v", i, w.Waited, due)
		}
	}
}

// tornPhase runs faultPass on l up to its in-place writes, as a pass that
// stops there (SIGSTOP, a crash) leaves it: the journal complete, the
// write phase begun, half of every record written to the list.
func tornPhase(t *testing.T, l *List) {
	t.Helper()
	fault = func(op string) error {
		if op == "write list" {
			return errInjected
		}
		return nil
	}
	err := l.Run(context.Background(), faultPass())
	fault = nil
	if err == nil {
		t.Fatal("the injected fault did not stop the pass")
	}
	j, err := os.ReadFile(journalPath(l.Path()))
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := decodeJournal(j)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.Path(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range recs {
		f.WriteAt(r.data[:len(r.data)/2], r.off)
	}
}

// A pass that starts writing while a reader reads a block makes the reader
// read the block again, as the pass's journal completes it.
func TestReaderReadsAgainWhenAPassWrites(t *testing.T) {
	base := strings.Replace(faultBase, "- - 1 found - http://h/squeezed\n", "", 1)
	ref := listAt(t, base)
	run(t, ref, faultPass())
	post := entries(t, ref)

	l := listAt(t, base)
	w := reopen(t, l)
	calls := 0
	readSeam = func() {
		calls++
		if calls == 1 {
			tornPhase(t, w)
		}
	}
	defer func() { readSeam = nil }()
	// The read began before the pass and read again after it had begun
	// writing: it sees the lines the list had when it began, as the pass's
	// journal completes them.
	post = post[:strings.Count(base, "\n")-1]
	if got := entries(t, l); !reflect.DeepEqual(got, post) {
		t.Errorf("read across a write phase:\n%+v\nwant\n%+v", got, post)
	}
	if calls < 2 {
		t.Errorf("the block was read %d times, want again after the write phase", calls)
	}
}

// A reader whose file was renamed over (a rewrite) reads it as it is, and
// never lays a journal of the new file over it.
func TestReaderOfAReplacedFile(t *testing.T) {
	l := listAt(t, faultBase) // the squeezed line makes a pass rewrite
	pre := entries(t, l)
	w := reopen(t, l)
	calls := 0
	readSeam = func() {
		calls++
		if calls == 1 {
			if _, err := w.Compact(context.Background()); err != nil {
				t.Error(err)
			}
			tornPhase(t, w) // in place, on the new file
		}
	}
	defer func() { readSeam = nil }()
	if got := entries(t, l); !reflect.DeepEqual(got, pre) {
		t.Errorf("read of the replaced file:\n%+v\nwant\n%+v", got, pre)
	}
}

// A lock record left torn (by a power cut: it is never fsynced) does not
// stop readers, and the next pass writes a whole one.
func TestTornLockRecord(t *testing.T) {
	l := listAt(t, faultBase)
	want := entries(t, l)
	if err := os.WriteFile(recordPath(l.Path()), make([]byte, recordLen), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, l); !reflect.DeepEqual(got, want) {
		t.Errorf("read with a torn lock record: %v, want %v", got, want)
	}
	if _, err := l.Add(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := readRecord(l.Path()); err != nil {
		t.Errorf("after a pass: %v", err)
	}
}
