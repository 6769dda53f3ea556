// Package mirrorindex keeps the pages and files that describe a mirror as a
// whole: which hosts it holds, what changed lately, which pages the sites
// removed. A person opens them in a browser at the mirror root; a program
// reads the same facts from the .spider directory without parsing HTML.
//
// Files, all relative to the mirror root:
//
//	index.html              the mirrored hosts, with their page and archived counts and last update
//	recent.html             new, changed, archived and restored pages (HTML) of the last 24 hours, newest first
//	archive.html            the archived pages (removed from their site, copy kept), newest first
//	spider-account.html     the account over the last days, as plots (written by the spiders: internal/account)
//	.spider/events.jsonl    the last MaxEvents events of every file, oldest first, one JSON object a line:
//	                        {"time":"2026-11-21T23:40:05Z","event":"archived","url":"http://h/p","host":"h","file":"h/p.html","page":true}
//	.spider/state.json      {"version":1,"hosts":{"h":{"pages":N,"files":N,"archived":N,"updated":T,"front":F}},
//	                        "archived":[{"url":U,"file":F,"time":T},...]} (newest first, at most MaxArchived)
//	.spider/lock            the lock under which all of the above are replaced
//
// An event is one of "new" (a first copy), "changed" (a copy replaced by
// different bytes), "archived" (the site answered 404 or 410: the copy is
// kept, with a banner, or removed with the remove_archived option, then
// "file" is "") and "restored" (an archived page served again). Counts start
// when the index does: pages mirrored before it are not counted. A spider
// publishes its events every few seconds and when it stops; one that is
// killed loses the events it had not published yet (the list and the
// files are right all the same: the index is a summary, not a record).
//
// Publish merges a batch of events under the lock, so two spiders never
// interleave, and replaces every file atomically through the Store (the
// mirror's Write: temp, fsync, rename), so a reader sees a complete old or
// new version of each file at every moment. The files are bounded whatever
// the mirror's size: MaxEvents events, MaxArchived archived pages, MaxRecent
// rows on recent.html. A Store is all the package touches; it is safe for
// use by several processes to the extent the Store's Lock is.
package mirrorindex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Limits on the index files.
const (
	MaxEvents   = 10000 // events kept in .spider/events.jsonl
	MaxArchived = 5000  // archived pages kept in state.json and listed on archive.html
	MaxRecent   = 1000  // rows on recent.html
	RecentSpan  = 24 * time.Hour
	// Refresh is how old the pages may grow without news before Publish
	// regenerates them anyway, so recent.html drops what is no longer recent.
	Refresh = 10 * time.Minute
)

// Names of the files, relative to the mirror root.
const (
	IndexPage   = "index.html"
	RecentPage  = "recent.html"
	ArchivePage = "archive.html"
	// AccountPage is written by the spiders (internal/account's Page),
	// not by Publish; the other pages link to it.
	AccountPage = "spider-account.html"
	EventsFile  = ".spider/events.jsonl"
	StateFile   = ".spider/state.json"
	LockFile    = ".spider/lock"
)

// Kinds of event.
const (
	New      = "new"
	Changed  = "changed"
	Archived = "archived"
	Restored = "restored"
)

// An Event is a change of one page's copy in the mirror.
type Event struct {
	Time  time.Time `json:"time"`
	Kind  string    `json:"event"`
	URL   string    `json:"url"`
	Host  string    `json:"host"`
	File  string    `json:"file"` // relative to the mirror root; "" if the copy was removed
	Page  bool      `json:"page"` // an HTML page, not an image, style sheet, ...
	Bytes int       `json:"bytes,omitempty"`
}

// Store is what the index needs of a mirror (mirror.Mirror has it).
type Store interface {
	ReadFile(rel string) ([]byte, error)
	Write(rel string, data []byte) error
	Lock(rel string) (unlock func(), err error)
}

// State is the content of .spider/state.json.
type State struct {
	Version   int              `json:"version"`
	Generated time.Time        `json:"generated"` // when the pages were last written
	Hosts     map[string]*Host `json:"hosts"`
	Archived  []ArchivedPage   `json:"archived"`
}

// Host is one mirrored host's counts, and the page index.html links.
type Host struct {
	Pages    int       `json:"pages"`    // HTML pages
	Files    int       `json:"files"`    // pages and every other file
	Archived int       `json:"archived"` // pages
	Updated  time.Time `json:"updated"`
	// Front is the file of the host's root page ("/") once it has a
	// copy, else of the first page the host had (a first mirror's start
	// page, which need not be the root: a forum under /forum/); "" when
	// neither is known (a host counted before Front was kept), and then
	// index.html links HOST/index.html. A copy removed with its page is
	// not noticed.
	Front string `json:"front,omitempty"`
}

// isRoot reports whether the canonical URL u is its host's root page.
func isRoot(u string) bool {
	_, rest, _ := strings.Cut(u, "://")
	i := strings.IndexByte(rest, '/')
	return i >= 0 && rest[i:] == "/"
}

// ArchivedPage is a page the site removed.
type ArchivedPage struct {
	URL  string    `json:"url"`
	File string    `json:"file"`
	Time time.Time `json:"time"`
}

// Publish adds events to the index and regenerates its pages as of now.
// With no events it writes the pages only if index.html is missing (a new
// mirror gets its root page) or they are older than Refresh.
func Publish(s Store, events []Event, now time.Time) error {
	return new(Publisher).Publish(s, events, now)
}

// A Publisher is Publish for a process that publishes again and again: it
// keeps the event log it last wrote, so that as long as no other process
// has written one since, the next Publish neither decodes the log nor
// encodes its old events again, work that grows with the log. The
// zero Publisher is ready; it is not safe for concurrent use.
type Publisher struct {
	written []byte   // EventsFile as last written
	log     []Event  // its events
	lines   [][]byte // and their lines, without the newline
}

// Publish is the package's Publish.
func (p *Publisher) Publish(s Store, events []Event, now time.Time) error {
	if len(events) == 0 {
		if _, err := s.ReadFile(IndexPage); err == nil {
			if st, err := readState(s); err == nil && now.Sub(st.Generated) < Refresh {
				return nil
			}
		}
	}
	unlock, err := s.Lock(LockFile)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readState(s)
	if err != nil {
		return err
	}
	if err := p.readEvents(s); err != nil {
		return err
	}
	for _, ev := range events {
		st.apply(ev)
		line, _ := json.Marshal(ev)
		p.log, p.lines = append(p.log, ev), append(p.lines, line)
	}
	st.Generated = now
	if n := len(p.log) - MaxEvents; n > 0 {
		p.log, p.lines = slices.Clone(p.log[n:]), slices.Clone(p.lines[n:])
	}
	log := p.log
	var b bytes.Buffer
	for _, line := range p.lines {
		b.Write(line)
		b.WriteByte('\n')
	}
	stb, _ := json.MarshalIndent(st, "", " ")
	files := []struct {
		name string
		data []byte
	}{
		{EventsFile, b.Bytes()},
		{StateFile, append(stb, '\n')},
		{IndexPage, renderIndex(st, now)},
		{RecentPage, renderRecent(log, now)},
		{ArchivePage, renderArchive(st, now)},
	}
	p.written = nil // unknown until the write succeeds
	for _, f := range files {
		if err := s.Write(f.name, f.data); err != nil {
			return err
		}
		if f.name == EventsFile {
			p.written = f.data
		}
	}
	return nil
}

// apply counts one event into the state.
func (st *State) apply(ev Event) {
	h := st.Hosts[ev.Host]
	if h == nil {
		h = &Host{}
		st.Hosts[ev.Host] = h
	}
	if ev.Time.After(h.Updated) {
		h.Updated = ev.Time
	}
	if ev.Page && ev.File != "" && (isRoot(ev.URL) || ev.Kind == New && h.Pages == 0) {
		h.Front = ev.File
	}
	if ev.Kind == New {
		h.Files++
		if ev.Page {
			h.Pages++
		}
	}
	if !ev.Page {
		return
	}
	i := slices.IndexFunc(st.Archived, func(a ArchivedPage) bool { return a.URL == ev.URL })
	switch ev.Kind {
	case Archived:
		if i < 0 {
			h.Archived++
			st.Archived = slices.Insert(st.Archived, 0, ArchivedPage{URL: ev.URL, File: ev.File, Time: ev.Time})
			if len(st.Archived) > MaxArchived {
				st.Archived = st.Archived[:MaxArchived]
			}
		}
	case Restored:
		if i >= 0 {
			st.Archived = slices.Delete(st.Archived, i, i+1)
		}
		if h.Archived > 0 {
			h.Archived--
		}
	}
}

// A FileReader reads a mirror's files (mirror.Mirror, or a plain directory
// for a reader that must not write).
type FileReader interface {
	ReadFile(rel string) ([]byte, error)
}

// ReadState returns the state as last published (StateFile): the counts
// and archived pages that spider status reports, whichever spider found
// them and whenever. A mirror without an index gives fs.ErrNotExist.
func ReadState(r FileReader) (*State, error) {
	b, err := r.ReadFile(StateFile)
	if err != nil {
		return nil, err
	}
	return parseState(b)
}

// readState is ReadState for a writer: no index yet is an empty one.
func readState(s FileReader) (*State, error) {
	st, err := ReadState(s)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Version: 1, Hosts: map[string]*Host{}}, nil
	}
	return st, err
}

func parseState(b []byte) (*State, error) {
	st := &State{}
	if err := json.Unmarshal(b, st); err != nil || st.Version != 1 {
		return nil, fmt.Errorf("mirrorindex: %s: not a version 1 state (%v)", StateFile, err)
	}
	if st.Hosts == nil {
		st.Hosts = map[string]*Host{}
	}
	return st, nil
}

// readEvents loads the event log into p, unless p holds it already; a line
// that does not parse is dropped.
func (p *Publisher) readEvents(s Store) error {
	b, err := s.ReadFile(EventsFile)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = nil, nil
	}
	if err != nil {
		return err
	}
	if p.written != nil && bytes.Equal(b, p.written) {
		return nil // what this Publisher wrote last: p.log holds it
	}
	p.log, p.lines = nil, nil
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev Event
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 && json.Unmarshal(line, &ev) == nil {
			p.log, p.lines = append(p.log, ev), append(p.lines, bytes.Clone(line))
		}
	}
	return nil
}
