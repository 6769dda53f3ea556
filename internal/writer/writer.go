// Package writer commits groups of files into a mirror (mirror.Group) in a
// helper process that runs at the lowest CPU priority, where the system has
// one (Linux's SCHED_IDLE), else in the calling process.
//
// Creating a file is the kernel's work, 30-50 µs a page on ext4, and a
// crawler that fetches as fast as the machine allows (--delay 0) spends a
// fifth of its CPU on it. At normal priority that work holds a CPU that
// the crawl's critical path wants: the answer to the next page of a long
// listing waits behind a commit. At idle priority a commit runs only when
// no other thread on the machine wants a CPU, and yields it the moment one
// does: a first mirror of the test forum (scripts/bench-crawl, 10,000
// topics) took about 3% less time, won in the wait of the site's chain
// of index pages. A thread of the crawler itself cannot safely run there:
// when the kernel parks it, it may hold a lock of the Go runtime or of the
// crawler that every other thread then waits for, and on a machine busy
// with other work it may not run again for seconds (one commit waited 23.7
// s); an unprivileged thread cannot leave the idle class either. A process
// of its own holds no lock of its caller's.
//
// The helper is the calling program itself (/proc/self/exe), started again
// with EnvHelper set: its main calls Serve first. It gets the mirror's
// directory as its caller has it open, says once that it runs at idle
// priority (until then the caller commits the groups itself: Start does
// not wait), then reads groups and answers each, once the group is
// durable, with one error per file, on pipes of its own (fdGroups,
// fdAnswers). It exits when its input ends (its caller closed the writer)
// and is killed by the kernel when its caller dies; it ignores the signals
// that stop a spider gracefully, since its caller decides when it ends.
//
// The helper writes new files only (mirror.Group.NoReplace): a file whose
// name exists (a page's new copy over its old one) it leaves to its
// caller, which writes it in the same Commit. So nothing the helper does
// can put a file over another, however late it does it.
//
// A group that the helper has not answered within Options.Stall (more for
// a large group: limit), because it got no CPU on a machine busy with
// other work or the disk is slow, or whose exchange failed (the helper
// died), is committed in the calling process instead, followed by a sync
// of the whole file system (a directory the helper made may not be
// durable yet), and so is every group after it. The helper is killed; the
// caller does not wait for it to exit (at idle priority on a busy machine
// that takes seconds), since the most it can still do is finish the system
// call it was in: a directory or a link of a new file of the group the
// caller is writing, whose copy the caller's then replaces. Two things it
// can leave: a temp file, if killed before it could remove one that it
// could not use (the next mirror.Open removes it), and, if that last link
// comes after the name was removed (an archived page's copy deleted with
// remove_archived) or the caller could not write it, a copy of the page
// under a name the list does not record, as a killed spider can.
// Commit's contract is the same either way: a file whose error is nil is
// durable under its name when Commit returns, and no file is ever seen
// half written (mirror).
//
// What idle priority costs on a machine with no CPU to spare: the group
// that finds the helper stalled waits the stall, once; and while the
// kernel parks the helper in the middle of a file operation it holds what
// that operation holds (a directory's lock, on a journalled file system a
// journal handle), which a file operation of the caller's may wait for
// until the helper runs again (the kernel gives an idle thread a small
// share even then, about 0.3% next to each busy one).
package writer

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/spider-mirror/spider/mirror"
)

// File is a file of a group: its name relative to the mirror root, and its
// bytes.
type File struct {
	Rel  string
	Data []byte
}

// Options configure Start.
type Options struct {
	// Stall is how long a group may wait for the helper's answer before
	// the caller writes it, and every group after it, itself; a group of
	// more than a thousand files or 16 MiB gets more (limit). Default
	// DefaultStall.
	Stall time.Duration
	// Logger hears of a helper given up; nil: nobody does.
	Logger *slog.Logger
}

// DefaultStall is Options.Stall's default. The helper's commits in a first
// mirror of the test forum (10,000 topics, --delay 0) took 6 ms at the
// median and 56 ms at most (427 files); half a second without an answer
// is a machine with no CPU to spare for it.
const DefaultStall = 500 * time.Millisecond

// A Writer commits groups of files into one mirror, in its helper or in
// the calling process. It is safe for concurrent use; commits run one at a
// time.
type Writer struct {
	m     *mirror.Mirror
	stall time.Duration
	log   *slog.Logger

	mu sync.Mutex
	h  *helper // nil: this process writes
}

// Local returns a Writer that commits in the calling process.
func Local(m *mirror.Mirror) *Writer {
	return &Writer{m: m, stall: DefaultStall, log: slog.New(slog.DiscardHandler)}
}

// Start returns a Writer whose groups a helper commits at idle priority,
// once it has started and said that it runs there (until then the calling
// process commits them: Start does not wait). If the helper cannot be
// started, the Writer commits in the calling process, and the error says
// why; if it cannot run at idle priority, the first Commit after it says so
// gives it up.
func Start(m *mirror.Mirror, opt Options) (*Writer, error) {
	w := Local(m)
	if opt.Stall > 0 {
		w.stall = opt.Stall
	}
	if opt.Logger != nil {
		w.log = opt.Logger
	}
	if !idleSupported {
		return w, errNoIdle
	}
	root, err := m.RootDir()
	if err != nil {
		return w, fmt.Errorf("writer: start helper: %w", err)
	}
	defer root.Close() // the helper has its own once started
	h, err := startHelper(root)
	if err != nil {
		return w, err
	}
	w.h = h
	return w, nil
}

// Helper reports whether a helper commits the groups, or will once it has
// started (as opposed to the calling process).
func (w *Writer) Helper() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.h != nil
}

// Commit commits the files as one mirror.Group and returns their errors,
// in order: nil for a file durable under its name.
func (w *Writer) Commit(files []File) []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(files) == 0 {
		return nil
	}
	if w.h == nil || !sendable(files) {
		return commit(w.m, files, false)
	}
	was := w.h.up
	up, err := w.h.ready()
	if err == nil && !up {
		return commit(w.m, files, false) // not up yet
	}
	if err == nil {
		if !was {
			w.log.Debug("mirror written by a helper process at idle CPU priority", "pid", w.h.cmd.Process.Pid)
		}
		var errs []error
		if errs, err = w.h.commit(files, limit(w.stall, files)); err == nil {
			w.replace(files, errs)
			return errs
		}
	}
	w.h.kill()
	w.h = nil
	if !up {
		w.log.Debug("no mirror writer at idle priority; this process writes the mirror", "err", err)
		return commit(w.m, files, false)
	}
	w.log.Warn("mirror writer at idle priority given up; this process writes the mirror from now on", "err", err)
	return w.after(files)
}

// after commits in this process a group that a helper given up may have
// begun: whatever of it the helper made (a directory, a link) may not be
// durable yet, and this process's commit syncs only what it changes
// itself, so the whole file system is synced after it.
func (w *Writer) after(files []File) []error {
	errs := commit(w.m, files, false)
	if err := w.m.Sync(); err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = fmt.Errorf("writer: %s: sync after the helper: %w", files[i].Rel, err)
			}
		}
	}
	return errs
}

// sendable reports whether the helper would read every file of a group.
func sendable(files []File) bool {
	for _, f := range files {
		if len(f.Rel) > maxName || int64(len(f.Data)) > maxData {
			return false
		}
	}
	return true
}

// replace commits in this process the files that the helper left to it
// (errYours: their names exist, and the helper writes new files only).
func (w *Writer) replace(files []File, errs []error) {
	var mine []int
	for i, err := range errs {
		if errors.Is(err, errYours) {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return
	}
	sub := make([]File, len(mine))
	for k, i := range mine {
		sub[k] = files[i]
	}
	for k, err := range commit(w.m, sub, false) {
		errs[mine[k]] = err
	}
}

// limit is how long the helper may take to answer a group: the stall,
// 200 µs a file past the first thousand (creating a file on ext4 takes
// 30-50 µs, more in a directory of a million names) and a second per 16
// MiB (the group's two syncfs calls write back whatever is dirty).
func limit(stall time.Duration, files []File) time.Duration {
	var size int64
	for _, f := range files {
		size += int64(len(f.Data))
	}
	return stall + time.Duration(max(len(files)-1000, 0))*200*time.Microsecond + time.Duration(size>>24)*time.Second
}

// Close ends the helper, if any: it exits once it has answered what it
// was sent. The Writer commits in the calling process after Close.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.h == nil {
		return nil
	}
	err := w.h.close(w.stall)
	w.h = nil
	return err
}

// commit commits files in one mirror.Group and returns their errors. With
// newOnly (the helper's), it writes new files only (Group.NoReplace): a
// file whose name exists, or that cannot be written so, fails with an
// error that satisfies errors.Is(err, fs.ErrExist) or errors.Is(err,
// errors.ErrUnsupported), and is left to the caller.
func commit(m *mirror.Mirror, files []File, newOnly bool) []error {
	errs := make([]error, len(files))
	g := m.Group()
	if newOnly {
		g.NoReplace()
	}
	staged := make([]int, 0, len(files))
	for i, f := range files {
		if _, err := g.Stage(f.Rel, f.Data); err != nil {
			errs[i] = err
			continue
		}
		staged = append(staged, i)
	}
	for k, err := range g.Commit() {
		errs[staged[k]] = err
	}
	return errs
}
