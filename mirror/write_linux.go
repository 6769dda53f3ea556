//go:build linux

package mirror

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// fastSync takes two shortcuts on Linux for a group of groupSync files or
// more, each given up wherever the kernel or the file system refuses it.
//
// Whole syncs: one syncfs(2) of the mirror's file system makes the whole
// group durable where WriteAll would fsync each of its files (step 2) or
// directories (step 4). Its cost hardly grows with the group, at the price
// of also writing back whatever other programs wrote to that file system.
// syncfs reports a write-back error only since Linux 5.8, only if it
// happened since the descriptor it is given was opened, and only once per
// descriptor. So the root is opened for it once, with the Mirror, and never
// anew (a new descriptor would miss an error of a write-back that ran
// between a file's write and the sync); older kernels do without it; and a
// group that began before another group's syncfs failed does not trust its
// own, since that error may have been one of its files': it fsyncs each
// file instead, which reports each file's own error.
//
// Unnamed files: a group synced whole writes each file to an unnamed file
// in its directory (O_TMPFILE) and links it under its name (linkat(2)) in
// step 3, instead of creating, locking and renaming away a temp name: in a
// large directory that is much of the work of writing a small file, and a
// crash leaves no temp file behind. A name that exists is replaced as in
// the portable path: the file is locked, linked under a temp name and
// renamed over it. A link changes the file's link count, in its inode, so
// step 4 syncs the linked files as well as the directories.
type fastSync struct {
	f     *os.File // the mirror's root; nil: no syncfs
	anon  bool     // unnamed files can be created and linked in the mirror
	mu    sync.Mutex
	fails uint64 // syncfs calls that failed
}

// syncfs is unix.Syncfs; tests replace it to fail.
var syncfs = unix.Syncfs

// open prepares s for the mirror whose root is r.
func (s *fastSync) open(r *os.Root) {
	var u unix.Utsname
	if unix.Uname(&u) != nil || !kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8) {
		return
	}
	if s.f, _ = r.Open("."); s.f == nil {
		return
	}
	// Try an unnamed file: created, linked under a temp name, removed.
	if f, err := openUnnamed(s.f); err == nil {
		name := tempName()
		s.anon = linkAt(f, s.f, name) == nil && r.Remove(name) == nil
		f.Close()
	}
}

func (s *fastSync) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// whole reports whether a group of n files is to be synced whole.
func (s *fastSync) whole(n int) bool {
	return n >= groupSync && s.f != nil
}

// epoch returns a mark to pass to group later: the failures so far.
func (s *fastSync) epoch() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fails
}

// group makes everything written to the file system so far durable, if n
// (the files or directories of a group) is large enough and syncfs can be
// trusted for a group that began at epoch since, and reports whether it
// did. When it reports false, the caller fsyncs each file or directory.
func (s *fastSync) group(n int, since uint64) bool {
	if n < groupSync || s.f == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if cerr := control(s.f, func(fd int) { err = syncfs(fd) }); cerr != nil {
		return false
	}
	if err != nil {
		s.fails++
		return false
	}
	return s.fails == since
}

// prepare opens the directory d for createUnnamed, once per group; the
// files of a group are then created on several goroutines at once.
func (s *fastSync) prepare(d *dir) {
	if s.anon && d.fd == nil {
		d.fd, _ = d.root.Open(".")
	}
}

// createUnnamed returns a new unnamed file in the directory d (which
// prepare opened), open for reading and writing, or nil where there can be
// none.
func (s *fastSync) createUnnamed(d *dir) *os.File {
	if !s.anon || d.fd == nil {
		return nil
	}
	f, _ := openUnnamed(d.fd)
	return f
}

// link gives the unnamed file t its name. Where the name exists, t is
// locked and linked under a temp name (t.name), which the caller renames
// over it as any named temp file.
func (s *fastSync) link(t *temp) error {
	err := linkAt(t.f, t.dir.fd, path.Base(t.rel))
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := lockFile(t.f); err != nil {
		return err
	}
	for range 10 {
		name := tempName()
		if err = linkAt(t.f, t.dir.fd, name); !errors.Is(err, fs.ErrExist) {
			if err == nil {
				t.name = name
			}
			return err
		}
	}
	return err
}

// openUnnamed creates an unnamed file in the directory dir (O_TMPFILE).
func openUnnamed(dir *os.File) (*os.File, error) {
	var fd int
	var err error
	if cerr := control(dir, func(dfd int) {
		for {
			fd, err = unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
			if err != unix.EINTR {
				return
			}
		}
	}); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, &os.PathError{Op: "openat O_TMPFILE", Path: dir.Name(), Err: err}
	}
	return os.NewFile(uintptr(fd), dir.Name()+"/(unnamed)"), nil
}

// linkAt gives the unnamed file f the name (one name, from checkRel or
// tempName) in the directory dir. A name that exists fails with an error
// that satisfies errors.Is(err, fs.ErrExist). Without the privilege that
// linkat's AT_EMPTY_PATH asks before Linux 6.10, f is linked through
// /proc/self/fd.
func linkAt(f, dir *os.File, name string) error {
	var err, ferr error
	cerr := control(dir, func(dfd int) {
		ferr = control(f, func(fd int) {
			err = unix.Linkat(fd, "", dfd, name, unix.AT_EMPTY_PATH)
			if err == unix.ENOENT || err == unix.EPERM {
				err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dfd, name, unix.AT_SYMLINK_FOLLOW)
			}
		})
	})
	if cerr := cmp.Or(cerr, ferr); cerr != nil {
		return cerr
	}
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: f.Name(), New: name, Err: err}
	}
	return nil
}

// control calls fn with the descriptor of f.
func control(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}

// kernelAtLeast reports whether the kernel release ("6.1.0-13-amd64") is
// at least major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	fields := strings.FieldsFunc(release, func(r rune) bool { return r < '0' || r > '9' })
	if len(fields) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(fields[0])
	mi, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
