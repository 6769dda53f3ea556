package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// truth is the ground truth -truth-file holds, rewritten whole (temp file
// and rename) at start and after every change, so a sampler can tell
// whether a mirror's copy of a page is current:
//
//	{"time": 1764040000.5, "changes_applied": 12,
//	 "versions": {"/": 13, "/article/1-…": 1, "/media/1.png": 1, …},
//	 "unmarked": ["/media/1.png", …, "/static/site.css"],
//	 "changes": [{"time": 1764039999.5, "kind": "announced", "path": "/article/9-…", "version": 2}, …]}
//
// versions has every path reachable from "/" (pages and images) with its
// version (sitetest.Site.Versions), which an HTML page also carries in
// <meta name="x-version">; a deleted path is absent. unmarked lists the
// live paths whose body carries no marker (images, the style sheet): they
// are never edited, so any copy of them is current. changes lists every
// change applied, oldest first, with the version it gave its path (0 for
// a deletion). Times are Unix seconds.
type truth struct {
	Time     float64        `json:"time"`
	Applied  int            `json:"changes_applied"`
	Versions map[string]int `json:"versions"`
	Unmarked []string       `json:"unmarked"`
	Changes  []truthChange  `json:"changes"`
}

type truthChange struct {
	Time    float64 `json:"time"`
	Kind    string  `json:"kind"`
	Path    string  `json:"path"`
	Version int     `json:"version"`
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// record notes the change a churner described ("KIND PATH") at now and
// takes the site's versions after it. A change that did nothing ("none
// (…)") is not listed.
func (t *truth) record(site *sitetest.Site, desc string, now time.Time) {
	t.Time = unixSeconds(now)
	if t.Changes == nil {
		t.Changes = []truthChange{} // a list in the JSON, never null
	}
	t.Versions = site.Versions()
	t.Unmarked = []string{}
	for p := range t.Versions {
		if b, _ := site.Body(p); !bytes.Contains(b, []byte(`<meta name="`+sitetest.VersionMeta+`"`)) {
			t.Unmarked = append(t.Unmarked, p)
		}
	}
	sort.Strings(t.Unmarked)
	kind, path, ok := strings.Cut(desc, " ")
	if !ok || kind == "none" {
		return
	}
	t.Applied++
	t.Changes = append(t.Changes, truthChange{t.Time, kind, path, t.Versions[path]})
}

// write replaces the file name with t.
func (t *truth) write(name string) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return writeFileAtomic(name, append(b, '\n'))
}

// requestLog writes one line per request the site answered, for a
// benchmark to count requests, 304 answers and the rate over time:
//
//	1764040000.123456 200 GET /article/12-slug
//
// (Unix time the answer ended, status, method, request URI). It is
// buffered; Close flushes it.
type requestLog struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error
}

func openRequestLog(name string) (*requestLog, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	return &requestLog{f: f, w: bufio.NewWriter(f)}, nil
}

// add logs one request (sitetest.Options.OnRequest).
func (l *requestLog) add(r sitetest.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, "%.6f %d %s %s\n", unixSeconds(r.Time), r.Status, r.Method, r.Path)
	}
}

// Flush writes what is buffered, so the file is current to the last
// request answered.
func (l *requestLog) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = l.w.Flush()
	}
	return l.err
}

// Close flushes and closes the log and reports the first error it met.
func (l *requestLog) Close() error {
	err := l.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

var _ io.Closer = (*requestLog)(nil)
