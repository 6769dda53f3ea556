// Package mirror stores the copies of crawled pages in a directory tree that
// a browser can open without a server, laid out like wget -m -E on Unix, and
// replaces every file atomically and durably, so that any number of spider
// processes may share one mirror.
//
// # Layout
//
// The mirror root holds one directory per host and a few names of its own,
// which no host directory can take:
//
//	index.html, recent.html, archive.html   pages about the whole mirror (internal/mirrorindex)
//	spider-account.html                      the spiders' account over time (internal/account)
//	.spider/                                 the index a program reads, and its lock
//
// Path names the file of a URL from its canonical form (internal/urlkey) and
// its response's media type; its doc gives the rules. Distinct URLs get
// distinct files (bar http and https), and "{}" marks where a name was
// added to:
//
//	http://example.com/                    text/html  example.com/index.html
//	http://example.com/about               text/html  example.com/about{}.html
//	http://example.com/about.html          text/html  example.com/about.html
//	https://example.com:8443/x.png         image/png  example.com:8443/x.png
//	http://example.com/page.php?id=1&x=2   text/html  example.com/page.php?id=1&x=2{}.html
//	http://example.com/a//b.png            ""         example.com/a/{empty}/b.png
//
// Every name Path makes is filepath.IsLocal, and the mirror opens every name
// through an os.Root as well, so neither a hostile URL nor a symlink planted
// in the tree can lead a write outside the root. Layout{FoldCase: true}
// names files so that a case-insensitive file system keeps them apart.
//
// The spider (internal/crawl) writes each page with its links already
// pointing, relatively, at the files their URLs map to (internal/rewrite),
// so the tree can be browsed from disk at every moment. A page the site
// removed keeps its file, so links to it keep working, with a banner saying
// so (rewrite.Banner). The root pages and .spider are read, merged and
// replaced under Lock.
//
// # Writes and crashes
//
// Write and WriteAll replace files, Remove deletes one. A file is written to
// a temp file in its directory (".spider-tmp#" + writer's PID + '-' + 16 hex
// digits; on Linux, a file of a large group is unnamed), made durable, and
// renamed (or linked) over its name, and then its directory is made
// durable; WriteAll takes each step once for a whole group of files
// (write.go gives the steps). So, on a local file system that keeps a
// rename atomic across a crash:
//
//   - A reader, in any process, sees under a name the old file or the new
//     one, never a part of one. Two writers of one name at once leave one
//     writer's whole file: the last rename wins.
//   - When WriteAll returns nil for a file, its data and its name are on
//     disk and survive a crash or a power loss. An error before the rename
//     leaves the old file untouched; an error after it (the directory's
//     sync) leaves the new file in place but not known durable.
//   - A crash leaves, under every name, a whole file: the last one whose
//     WriteAll returned nil, or a newer one. Besides, it may leave temp
//     files and directories created for files never renamed into them.
//     Open removes the temp files of writers that are gone, and never
//     removes a directory.
//
// Durability order: the crawler records a URL as downloaded in the list only
// after WriteAll returned nil for its file, so the list never refers to a
// file that a crash can take away (restic's "must only reference existing
// data" invariant). A crash in between leaves a newer file than the list
// says, which the next fetch replaces.
//
// # Processes
//
// A Mirror is safe for concurrent use by goroutines, and a mirror directory
// for use by several processes on one machine, on a local file system with
// working flock(2) and fsync(2): not on NFS or SMB. Where Go has no flock
// (Windows), temp files are closed before the rename, directories are not
// synced, and Open takes a temp file for stale only after an hour.
package mirror

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Mirror is a mirror directory opened through an os.Root.
type Mirror struct {
	dir  string
	root *os.Root
	fast fastSync // a whole group's sync in one call, where there is one
	// beforeRename, if set, runs for each file between the sync of its
	// temp file (f, open for reading too) and its rename; an error it
	// returns fails the file there (tests).
	beforeRename func(rel string, f *os.File) error
	// written, if set, runs for each file once its data is written, on
	// the goroutine that created it (step 1; tests).
	written func(rel string)
}

// Own is the mirror's own directory in its root (the index a program
// reads, and its lock: internal/mirrorindex). Open creates it before
// anything else, so a directory that holds files but not Own was never
// opened as a mirror, even while another process is opening it.
const Own = ".spider"

// Open opens the mirror directory dir, creating it and Own in it if
// needed, and removes the temp files that crashed writers left anywhere in
// it.
func Open(dir string) (*Mirror, error) {
	if err := os.MkdirAll(filepath.Join(dir, Own), 0o755); err != nil {
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	m := &Mirror{dir: dir, root: root}
	m.fast.open(root)
	if err := m.removeStaleTemps(); err != nil {
		m.Close()
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	return m, nil
}

// Close closes the mirror. It must not run concurrently with other methods.
func (m *Mirror) Close() error {
	m.fast.close()
	return m.root.Close()
}

// Dir returns the directory Open was given.
func (m *Mirror) Dir() string {
	return m.dir
}

// ReadFile returns the content of the file rel.
func (m *Mirror) ReadFile(rel string) ([]byte, error) {
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	return m.root.ReadFile(rel)
}

// Stat returns the FileInfo of rel, following symlinks inside the root.
func (m *Mirror) Stat(rel string) (fs.FileInfo, error) {
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	return m.root.Stat(rel)
}

// checkRel accepts a slash-separated local name that Path could produce: no
// empty, "." or ".." element, no backslash or NUL, no leading '/', and no
// element named like a temp file.
func checkRel(rel string) error {
	if rel == "." || !fs.ValidPath(rel) || !filepath.IsLocal(rel) ||
		strings.ContainsAny(rel, "\\\x00") || strings.Contains(rel, tempPrefix) {
		return fmt.Errorf("%w: %q", ErrUnsafePath, clip(rel))
	}
	return nil
}
