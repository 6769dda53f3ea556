// Package mirror stores the copies of crawled pages in a directory tree that
// a browser can open without a server, laid out like wget -m -E on Unix, and
// replaces every file atomically and durably so that any number of spider
// processes may share one mirror.
//
// # Layout
//
// The mirror root holds one directory per host and a few names of its own,
// which no host directory can take (see the host rule below):
//
//	index.html, recent.html, archive.html   pages about the whole mirror (internal/mirrorindex)
//	.spider/                                 the index a program reads, and its lock
//
// Path maps a canonical URL (internal/urlkey) and its response's media type
// to a slash-separated name relative to the mirror root:
//
//	http://example.com/                    text/html  example.com/index.html
//	http://example.com/docs/               text/html  example.com/docs/index.html
//	http://example.com/about               text/html  example.com/about.html
//	http://example.com/a/b.htm             text/html  example.com/a/b.htm
//	https://example.com:8443/x.png         image/png  example.com:8443/x.png
//	http://example.com/page.php?id=1&x=2   text/html  example.com/page.php?id=1&x=2.html
//	http://example.com/s.css?v=3           text/css   example.com/s.css?v=3.css
//	http://example.com/dl?f=a/b%20c        ""         example.com/dl?f=a%2Fb%2520c
//	http://xn--mller-kva.de/caf%C3%A9      ""         xn--mller-kva.de/café
//	http://example.com/caf%c3%a9           ""         example.com/caf%c3%a9
//	http://example.com/a//b                ""         example.com/a/{empty}/b
//	http://[::1]:8080/                     text/html  [::1]:8080/index.html
//	http://index.html/                     text/html  index%2Ehtml/index.html
//	http://.spider/x                       ""         %2Espider/x
//
// The rules, in order:
//
//   - The first component is the URL's host[:port] exactly as in the
//     canonical URL: lower case, IDN in punycode, IPv6 in brackets, the
//     default port dropped, ':' before any other port (wget's unix mode; no
//     Windows escaping, the mirror is for Unix file systems). The scheme is
//     not part of the name. The hosts "." and ".." become "%2E" and
//     "%2E%2E"; the '.' that starts any other host, and the '.' of a host
//     ending in ".html", become "%2E", so that no host directory is named
//     like the root's own files.
//   - Each path segment is a component. Percent-escapes stay as written,
//     except that a run of upper-case escapes spelling one valid multi-byte
//     UTF-8 character is decoded for readability ("caf%C3%A9" → "café").
//     ASCII is never decoded, nor lower-case escapes, nor C1 controls,
//     White_Space, format characters (bidi overrides and isolates,
//     zero-width characters, U+FEFF, ...), noncharacters and the Specials
//     block (keptRanges, a fixed table).
//   - An empty segment (from "//") becomes "{empty}". A canonical path
//     percent-encodes '{', so no segment maps there. Canonical URLs have no
//     "." or ".." segment; Path rejects one.
//   - An empty last segment (a URL path ending in '/') becomes "index.html".
//   - A query, even an empty one, is appended to the file name after a '?'
//     (which a canonical path never holds raw), with '%', '/', '\\', '#'
//     and bytes outside 0x21–0x7E written as %XX, so a query is never more
//     than one component and can be read back.
//   - text/html and application/xhtml+xml add ".html", and text/css adds
//     ".css", unless the whole file name, query included, already ends in
//     it (".htm" counts for HTML, any letter case): a browser opening a
//     file takes its type from the end of its name (wget -E).
//   - A component longer than 200 bytes becomes a prefix of itself cut on a
//     UTF-8 boundary, '~', 16 hex digits of the SHA-256 of the whole
//     component, and its extension if at most 8 bytes; such names are
//     217–220 bytes, so never equal to a name of 200 bytes or fewer.
//   - A result longer than 4096 bytes (PATH_MAX) is refused.
//
// Why distinct URLs get distinct names: the host and the query are copied
// or escaped reversibly; decoding adds only non-ASCII bytes, which a
// canonical path never holds raw, so escaping them again in upper case gives
// the segment back; "{empty}", "%2E" and a '?' in a file name each use a
// byte that the canonical form never leaves raw in that place; and hashed
// names are longer than any name kept as it is.
//
// Every result is filepath.IsLocal and holds no empty, "." or ".." component,
// no component over 255 bytes, no control character, space, backslash or '#'
// (so the list file can store it as a space-separated field, and no page is
// ever named like a temp file). Whatever the URL ("..", "%2e%2e", "..%2f",
// backslashes, NUL, an absolute path, a long one), the result stays under
// the root: dot segments are refused, '/' and '\' never come out of an
// escape, and the mirror opens every name through an os.Root as well. A
// fuzz test (FuzzPath) checks that every result is local and that distinct
// URLs get distinct names, bar the aliases below.
//
// Windows device names (CON, NUL.txt, ...) are ordinary names on Unix and
// are kept by Path. On a case-insensitive file system URLs differing only in
// letter case would share a file under Path; Layout{FoldCase: true} (the
// case_insensitive_names option) marks every name that is not all lower case
// with a hash of it, and device names and names ending in '.' or ' ' with
// "{}", so that they stay apart there too (see Layout). ReserveLen bounds
// the paths of both layouts.
//
// A link to one of these files (for rewriting pages) must percent-encode at
// least '%', '?' and '#' in the name ("page.php%3Fid=1.html"), and start
// with "./" or "../" when its first segment holds a ':' ("../[::1]:8080/").
//
// # Which URLs share a file
//
// Two distinct canonical URLs with the same media type get distinct paths,
// barring a SHA-256 prefix collision, except in these cases, all inherited
// from wget:
//
//   - http and https: http://h/p and https://h/p share h/p. (https://h:80/
//     and http://h:80 differ as h:80 and h.)
//   - directory index: /d/ and /d/index.html share d/index.html (also with
//     the same query: /d/?q and /d/index.html?q).
//   - added extension: a URL u served as HTML whose file name, query
//     included, ends in neither ".html" nor ".htm", and the URL u+".html"
//     share a name (/a and /a.html; /a?x and /a?x.html); likewise u served
//     as CSS and u+".css". With the index rule, /d/,
//     /d/index and /d/index.html are then all d/index.html as HTML.
//
// A file and a directory cannot have one name: /img (served as image/png,
// so named "img") and /img/a.png need "img" as both; whichever comes second
// fails to write with the file system's error (ENOTDIR, EEXIST or EISDIR),
// and neither is ever deleted to make room for the other. The .html and .css
// extensions make this impossible for pages: /foo as a page is foo.html,
// beside the directory foo of /foo/bar.
//
// # Links, archived pages, root pages
//
// The spider (internal/crawl) writes each page with its links already
// pointing, relatively, at the files their URLs map to here, whether those
// are mirrored yet or not (internal/rewrite), so the tree can be browsed
// from disk at every moment, not only after a run. A page the site removed
// keeps its file and name, so links to it keep working; its copy gets a
// banner saying so (rewrite.Banner), which a fresh copy does not have. The
// list records the page as archived, and .spider/state.json lists it too.
// The root pages and .spider are replaced under a lock on .spider/lock
// (Lock), with Write like every other file.
//
// # Writes, crashes and processes
//
// Every file is written by Write, or by Stage and then Commit, in restic
// local.Save's order, entirely through an os.Root so that no name, symlink
// included, can leave the root:
//
//  1. create a temp file ".spider-tmp#PID-" + 16 hex digits (PID: the
//     writer's process id) in the destination
//     directory (O_EXCL) and flock(2) it, creating each missing directory;
//  2. write the data and fsync the temp file;
//  3. rename it over the destination;
//  4. close it, releasing the flock, and fsync the directory, and the
//     parent of each directory of its path (another process may have
//     created one and not synced its parent yet).
//
// Write does all four for one file. Stage does step 1 and the write, and
// Commit does the rest for a group of staged files at once, each step for
// the whole group before the next: every fsync of step 2, then every rename,
// then each changed directory's fsync once. A group of 8 or more files (or
// directories) is synced with one syncfs(2) of the mirror's file system
// instead of an fsync each (Linux; it reports write-back errors since
// Linux 5.8): the cost of a commit then hardly grows with the group, at the
// price of also flushing what other programs wrote to that file system.
//
// A Group on Linux takes the same steps with fewer system calls (a first
// mirror writes a file a page, and these calls were most of its time in the
// kernel; see sys_linux.go): it opens each directory with one openat2(2)
// that resolves the path beneath the root and follows no symlink (a
// symlink sends it through os.Root), and in step 1 it creates an unnamed
// file in the directory (O_TMPFILE) instead of a named, flocked one. Step 3
// then links that file under its name (linkat(2)), which cannot replace
// anything: where the name exists, the file is flocked, linked under a temp
// name and renamed over it as above. Step 4 also syncs each file it linked,
// whose link count changed (with the group's syncfs, or an fsync each). An
// unnamed file is never visible in its directory, and a crash frees it.
//
// So a reader, in this process or another, sees either the complete old
// file or the complete new one, never a part; concurrent writers of one name
// leave one writer's complete data. When Write returns nil, or Commit
// returns a nil error for a file, the data and its name are on disk and
// survive a power loss; a staged file is invisible under its name until
// then. An error before the rename
// removes the temp file and leaves the old file untouched; an error after it
// (the directory fsync) leaves the new file in place but not known durable.
// The temp file stays flocked until after the rename, so that another
// process's Open never takes a live temp file for a crashed one.
//
// After a crash only temp files, and directories made for a file that was
// never renamed into them, can be left behind. Open walks the whole tree
// (its cost grows with the number of directories) and removes every file
// named ".spider-tmp#*" that is not flocked and either names a process that
// no longer exists (a spider killed mid-commit: cleaned by its restart) or
// was last modified more than a minute ago (a fresh one of a live process
// may belong to a writer that has created but not yet locked it).
// Directories are never removed.
//
// Durability order: the crawler must call Write or Commit, and see it
// return nil for the file, before the list records the URL as downloaded, so the list never refers to
// a file that a crash can take away (restic's "must only reference existing
// data" invariant). A crash in between leaves a newer file than the list
// says, which the next fetch replaces.
//
// A Mirror is safe for concurrent use by goroutines, and a mirror directory
// for use by several processes on one machine, on a local file system with
// working flock(2) and fsync(2): not on NFS or SMB. Where Go has no flock
// (Windows), temp files are closed before the rename, directories are not
// fsynced, and Open takes a temp file for stale after an hour.
package mirror

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Mirror is a mirror directory opened through an os.Root.
type Mirror struct {
	dir  string
	root *os.Root
	// The shortcuts of a Group on Linux (sys_linux.go), found out once:
	// rootf is the root directory, for openBeneath (nil: none), and anon
	// whether unnamed files can be created and linked here.
	probe sync.Once
	rootf *os.File
	// syncf is the root directory opened with the mirror, for syncfs,
	// which reports the write-back errors since its descriptor was
	// opened (nil if it could not be).
	syncf *os.File
	anon  bool
	// beforeRename, if set, runs between the temp file's fsync and its
	// rename; an error it returns fails the Write there (tests).
	beforeRename func(tmp string) error
}

// Open opens the mirror directory dir, creating it if needed, and removes
// the temp files that crashed writers left anywhere in it.
func Open(dir string) (*Mirror, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	m := &Mirror{dir: dir, root: root}
	m.syncf, _ = root.Open(".")
	if err := m.removeStaleTemps(); err != nil {
		m.Close()
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	return m, nil
}

// OpenSwept opens the mirror directory dir, which must exist, as Open
// does but without looking for crashed writers' temp files: for another
// process writing for one that has just opened it with Open (a helper,
// internal/writer), where a second walk of the whole mirror would only
// cost time.
func OpenSwept(dir string) (*Mirror, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("mirror: open %s: %w", dir, err)
	}
	m := &Mirror{dir: dir, root: root}
	m.syncf, _ = root.Open(".")
	return m, nil
}

// RootDir returns the mirror's directory, opened anew: for a process that
// writes for this one (internal/writer), which then opens the same
// directory whatever happens to its path.
func (m *Mirror) RootDir() (*os.File, error) {
	return m.root.Open(".")
}

// Close closes the mirror. It must not run concurrently with other methods.
func (m *Mirror) Close() error {
	if m.rootf != nil {
		m.rootf.Close()
	}
	if m.syncf != nil {
		m.syncf.Close()
	}
	return m.root.Close()
}

// rootDir returns the root directory open for openBeneath, or nil.
func (m *Mirror) rootDir() *os.File {
	m.probe.Do(m.probeShortcuts)
	return m.rootf
}

// Unnamed reports whether a Group writes unnamed files here (O_TMPFILE,
// Linux) and links them into place, which Group.NoReplace needs.
func (m *Mirror) Unnamed() bool { return m.unnamed() }

// Sync makes everything written to the mirror's file system so far
// durable (syncfs(2)), or fails where it cannot tell.
func (m *Mirror) Sync() error { return m.syncFS() }

// unnamed reports whether a Group writes unnamed files (createAnon) and
// links them into place.
func (m *Mirror) unnamed() bool {
	m.probe.Do(m.probeShortcuts)
	return m.anon
}

// probeShortcuts opens the root directory for openBeneath and tries an
// unnamed file in it: created, linked under a temp name, removed.
func (m *Mirror) probeShortcuts() {
	f, err := m.root.Open(".")
	if err != nil {
		return
	}
	m.rootf = f
	a, err := createAnon(f)
	if err != nil {
		return
	}
	defer a.Close()
	name := tempName()
	if linkAnon(a, f, name) != nil {
		return
	}
	m.anon = removeAt(f, name) == nil
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
