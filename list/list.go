// Package list keeps the one list of URLs that every spider of a mirror
// shares: a plain text file, locked as a whole for one short
// read-modify-write pass at a time, and safe for any number of processes on
// one machine.
//
// # File format, version 2
//
// The first line is the header
//
//	# spider-list v2: file spider_id level state last_modification due url
//
// Every other line describes one URL, with seven fields separated by runs
// of spaces, the URL last:
//
//	file        path of the copy relative to the mirror root, "-" if none
//	spider_id   the spider that has claimed the line, "-" if unclaimed
//	level       link distance from a start URL, a decimal; start URLs are 0
//	state       found | claimed | downloaded | archived | error |
//	            disallowed
//	last_modification
//	            time of the copy in the mirror, "2006-01-02T15:04:05Z"
//	            (UTC, whole seconds), "-" if there is none; for an
//	            archived line, when the site last said the page was gone
//	            (the copy keeps its own time in the mirror); for a
//	            disallowed line, when robots.txt last forbade it; for an
//	            error line without a copy, when the fetch last failed
//	due         when the line is worth a visit, same format, "-" if
//	            unknown: for a line with no copy, when it was found; for
//	            a copy, when the page is expected to have changed (the
//	            change model, internal/change); equal to
//	            last_modification when a hub or a sitemap said the page
//	            changed after the copy was taken (Entry.Hinted), or
//	            while a visit was out (Result.ForHint). The
//	            claim policy (internal/claim) reads it; it is advice,
//	            never a promise: the profiles' windows bound it.
//	url         the canonical URL (internal/urlkey): no spaces, one line
//	            per URL, never two lines for one URL
//
// Lines starting with '#' and blank lines are ignored. An example:
//
//	127.0.0.1:8080/index.html  -            0 downloaded 2026-11-21T20:00:00Z 2026-11-21T21:10:00Z http://127.0.0.1:8080/
//	-                          fast         1 claimed    -                    2026-11-21T19:59:58Z http://127.0.0.1:8080/forum/
//
// Version 1 lists (no due field) are read as lines whose due is unknown;
// the first pass that changes such a line rewrites the file as version 2.
//
// The states:
//
//	found       known, no copy yet, not claimed
//	claimed     no copy yet, being fetched by spider_id
//	downloaded  the mirror holds a copy as of last_modification
//	archived    the site answered 404 or 410; the copy, if any, is kept
//	error       the last fetch failed; the copy, if any, is kept untouched
//	disallowed  the site's robots.txt forbids fetching it; the page was not
//	            requested, the copy, if any, is kept untouched
//
// A disallowed line is due again like any other line, a window after
// last_modification. The spider that claims it asks its robots.txt (cached
// for at most 24 hours) before fetching: if it still forbids the URL, the
// line is recorded disallowed again without requesting the page; if it
// now allows it, the page is fetched as usual. That is how a changed
// robots.txt is noticed.
//
// A line is claimed exactly when its spider_id is not "-". A found line
// shows the state "claimed" while claimed; a downloaded, archived or error
// line keeps its state while it is being fetched again, so a claim never
// hides what the list knew, and returning a claim restores the line
// without any other record: spider_id becomes "-" and "claimed" becomes
// "found".
//
// The server's Last-Modified and ETag are not list fields (the spiders keep
// them, with the rest of each URL's fetch history, in LIST.meta: see
// internal/meta): last_modification
// is when the mirror's copy was taken (or, for an archived line or an error
// line without a copy, when it was last visited), the time freshness is
// measured from. So a line is visited again one window after its last
// visit; an error line with a copy keeps the copy's time, and the spider
// that failed backs off before trying it again.
//
// # What changes in place
//
// The list only grows: lines are appended, never removed or reordered, so a
// line's byte offset never changes while the file is updated in place. A
// line's url never changes, and its level only decreases (see Add). Its
// level, file, spider_id, state, last_modification and due change in place:
// every line is written with its file field padded with spaces to the
// longest path its URL can map to in the mirror (mirror.ReserveLen),
// spider_id padded to 12 bytes, state to 10 and both times to 20, so the part of the line before the URL (its
// prefix) can be rewritten with a single pwrite of the same length. A line
// whose new prefix does not fit (a hand-edited line with its padding
// squeezed out, say) makes that pass rewrite the whole file instead, to a
// temporary file that is fsynced and renamed over the list; this restores
// the padding and is the slow path.
//
// A pass reads the file from the start, line by line, without keeping it in
// memory: it needs memory for the new links and results it applies and the
// batch it claims, not for the list. See Cycle.
//
// # Multi-process contract
//
//   - The lock is an flock(2) on LIST.lock, a file that is never renamed or
//     removed (a lock on the list itself would stay on the old inode after a
//     rewrite's rename). It is held for one pass: read, decide, write,
//     fsync. It is never held while fetching.
//   - Every running spider holds an flock on LIST.spider-ID.lock for its
//     whole life; a second process with the same id gets ErrRunning. It
//     publishes LIST.spider-ID.json (SpiderStatus) with a heartbeat and
//     its lease: after each pass, and between passes with Beat (the
//     crawl beats every quarter lease, so slow fetches keep their claims).
//   - A claim belongs to a live spider while that spider's lock is held and
//     its heartbeat is younger than its own published lease. Every pass of
//     every spider checks the owners of the claims it reads and takes back
//     the claims of any owner that is dead (lock free: killed, crashed,
//     machine rebooted) or stalled (heartbeat older than its lease:
//     stopped with SIGSTOP, swapped out, hung). So a claim left behind
//     returns to the pool at the next pass of any live spider, and a
//     restarted spider takes back its own previous claims in its first
//     pass (as crawler4j re-queues its in-process URLs at start).
//   - Results are recorded only on lines the recording spider still holds.
//     A spider whose claims were taken back while it was stalled finds the
//     line unclaimed or claimed by another and drops its result (counted as
//     dropped), so it can never overwrite a newer result. The same rule
//     keeps it from overwriting newer copies in the mirror: a spider that
//     sees a gap of more than half its lease between its own heartbeats
//     treats every claim from before the gap as lost, and writes nothing
//     it fetched for them (internal/crawl).
//   - A spider stopped (SIGSTOP, swapped out, a hung disk) in the middle
//     of a pass holds the list's lock, and every other pass waits for it:
//     breaking a live lock would be worse. A killed one frees it at once.
//     The holder writes its pid and the time it took the lock into
//     LIST.lock (lockrec.go), so a waiter can say who keeps it waiting
//     (Options.OnWait, LockWaitError), and every wait ends with its
//     context.
//   - Readers (Scan, ScanChunk: spider status, show, list check) take no
//     lock: they read what complete passes wrote, with the help of the
//     journal and a sequence number in LIST.lock (snapshot.go), so a
//     stalled holder cannot stop them. They write nothing; a journal left
//     by a pass that died is replayed by the next pass.
//   - LIST.hosts.d/ holds each host's politeness state, shared by the
//     spiders of the list (internal/hostgate, under locks of its own);
//     this package never touches it.
//
// # Write ordering
//
// What a pass writes, in order, and why (the notation of restic's design
// document: a step is durable once the fsync after it returns):
//
//  1. Replay LIST.journal if it holds a complete journal, fsync the list,
//     empty the journal. A previous pass died between its steps 3 and 5;
//     its records are byte ranges at offsets, so writing them again is
//     harmless if they had already landed.
//  2. Read the list and decide: lines to append, prefixes to rewrite.
//  3. Write every record (the append at the old end, each new prefix at
//     its offset) and the old size to LIST.journal, with a SHA-256;
//     fsync it. From here the pass can always be completed.
//  4. Begin a write phase in LIST.lock (for readers), truncate a torn
//     tail, write the append and the prefixes; fsync the list; end the
//     write phase. The pass is now durable: results it recorded are done,
//     lines it appended exist, claims it made are held. (Step 1's replay
//     is a write phase too.)
//  5. Empty the journal (no fsync: replaying a complete journal twice is
//     harmless, and the next pass overwrites it anyway).
//
// A crash before step 3 completes leaves a torn journal (wrong checksum),
// which is ignored: the list was not touched. A crash during step 4 leaves
// torn lines that step 1 of the next pass repairs (a reader meanwhile
// reads the list as the journal completes it). A
// pass whose prefixes do not fit rewrites the whole list instead: it
// empties the journal durably first (the list is consistent after step 1,
// and the journal's offsets will not describe the new file), then writes a
// temporary file, fsyncs it, renames it over the list and fsyncs the
// directory, so the list is the old file or the new one.
//
// The mirror is written before the list: a spider writes a page (fsynced,
// renamed, directory fsynced) before the pass that records it, so a
// recorded result always refers to a copy on disk.
//
// # Why in place, and what it costs
//
// A streaming rewrite costs the size of the list in writes and an fsync of
// all of it at every pass; updating the changed prefixes in place costs a
// few kilobytes, so the lock is held for about the time it takes to read
// and parse the list, which grows linearly with it. The price is the
// padding of the file field, and the journal that makes the in-place
// writes atomic. Reading is in parallel sections above 8 MB (see
// parallel.go): the scan is bound by parsing, not by I/O.
// scripts/bench-list measures passes over a large generated list against
// reading it with cat; docs/performance.md has the current figures.
//
// # Deduplication without a map of the list
//
// A pass does not load the list. It builds a map of just the URLs it
// carries (links to append, results to record), compares every line's URL
// with it while streaming the file, and appends only what no line matched.
// Memory grows with the pass, not the list, and the check is exact: it
// runs under the lock, against the file as it is, so two processes can
// never append one URL twice.
//
// # Damage
//
// A last line without its newline was torn by a writer that died; it is
// ignored when reading, and the next writing pass truncates it before
// appending (no pass that reported success ever wrote it). Any other
// malformed line stops the pass with a *ParseError naming the file and line
// number; the pass then writes nothing, so no good line is ever dropped.
//
// The package holds no crawling policy: which lines to claim is decided by
// the Picker the caller passes (internal/claim).
//
// # Where things are
//
//	list.go      this contract; Open
//	line.go      the line format: Entry, State, AppendLine
//	parse.go     the one parser of a line; ParseError
//	cycle.go     a pass's inputs and outputs (Cycle); Run, Add, Compact
//	pass.go      a pass reading the list and deciding what to change
//	filter.go    a quick "not one of the pass's URLs" for most lines
//	pick.go      choosing the lines to claim (Picker, a bounded heap)
//	write.go     writing a pass's changes: in place, or a rewrite
//	journal.go   the journal that makes in-place writes atomic
//	scan.go      read passes: Scan, ScanChunk
//	parallel.go  reading a large list in sections
//	lock.go      the list's lock and the spiders' locks
//	lockrec.go   what the holder writes in LIST.lock: its pid, a seqlock
//	snapshot.go  reading without the lock
//	mirrorrec.go LIST.mirror: the mirror the list was first used with
//	status.go    what each spider publishes: SpiderStatus, Beat
//	repair.go    Repair
//	fault.go     failure injection, for tests
package list

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// List is a list file shared by processes. A List is safe for concurrent
// use by goroutines; its passes are serialised.
type List struct {
	path    string
	reserve func(url string) int
	flock   *flock.Flock
	sem     chan struct{} // held with the flock: it does not exclude goroutines of one process

	// Under the lock: the lock file, open for writing, and its content.
	rec *os.File
	cur lockRecord

	onWait     func(LockWait)
	waitReport time.Duration

	chunkFile os.FileInfo // the file a chunked read (ScanChunk) started on
}

// Options configure a List.
type Options struct {
	// Reserve returns how many bytes to reserve for the file field of a new
	// line for url: the longest path the mirror can give it. nil reserves
	// len(url)+16.
	Reserve func(url string) int

	// OnWait, if set, is told of a wait for the list's lock that has lasted
	// WaitReport, and again each time the wait has doubled: a stalled
	// holder (a spider stopped mid-pass) keeps every writer waiting.
	OnWait     func(LockWait)
	WaitReport time.Duration
}

// Open returns the list at path. Its directory must exist; the first pass
// creates the file, with its header, if it does not exist.
func Open(path string, o Options) (*List, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("list: directory of %s does not exist", path)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("list: %s is a directory", path)
	}
	l := &List{path: abs, reserve: o.Reserve, flock: flock.New(recordPath(abs)), sem: make(chan struct{}, 1),
		onWait: o.OnWait, waitReport: o.WaitReport}
	if l.reserve == nil {
		l.reserve = func(u string) int { return len(u) + 16 }
	}
	return l, nil
}

// Path returns the absolute path of the list file.
func (l *List) Path() string { return l.path }

// StatePath returns the path the files kept beside the list are named
// from (LIST.meta, LIST.hosts.d, …): the list's own path.
func (l *List) StatePath() string { return l.path }

// Statuses returns the status every spider that ever ran on the list
// published (ReadStatuses).
func (l *List) Statuses(ctx context.Context) ([]SpiderStatus, error) {
	return ReadStatuses(l.path)
}

// create writes a new list holding only the header, if there is no list.
func (l locked) create() error {
	if _, err := os.Stat(l.path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return writeAtomic(l.path, func(f *os.File) error {
		_, err := f.WriteString(Header + "\n")
		return err
	})
}

// removeTemps removes temporary files that a writer killed mid-write left
// beside the list (a rewrite's LIST.tmp-*, a status's .json.tmp-*). Every
// such file is written under the list's lock, so none of them is being
// written now.
func (l locked) removeTemps() {
	for _, pat := range []string{l.path + ".tmp-*", l.path + ".spider-*.json.tmp-*"} {
		if m, err := filepath.Glob(pat); err == nil {
			for _, f := range m {
				os.Remove(f)
			}
		}
	}
}
