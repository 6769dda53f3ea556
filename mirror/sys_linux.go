//go:build linux

package mirror

import (
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux a Group takes two shortcuts, each checked once per Mirror and
// given up for the os.Root path wherever the kernel or the file system
// refuses it:
//
//   - openBeneath opens a directory of the mirror in one openat2(2) that
//     resolves the whole path beneath the root and follows no symlink, the
//     walk os.Root makes one element at a time in user space.
//   - A page is written to an unnamed file (O_TMPFILE) in its directory and
//     named by linkat(2) once durable: no temp name to create, lock and
//     rename away, and nothing for a crash to leave behind. A name already
//     taken (a page replaced) is replaced by rename, as before: the file is
//     locked, linked under a temp name and renamed over it.

// openBeneath opens the directory dir (relative, slash-separated) of the
// tree whose root is open as root, as os.Root.OpenRoot would, in one call.
// ok is false where that call cannot decide: no openat2 (Linux before 5.6,
// or a sandbox that forbids it), or a symlink on the way, which os.Root
// follows if it stays inside the root; the caller then goes through
// os.Root.
func openBeneath(root *os.File, dir string) (f *os.File, ok bool, err error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	if cerr := control(root, func(rfd int) {
		// EAGAIN: a rename elsewhere in the tree raced the walk; the
		// kernel asks to try again.
		for range 100 {
			fd, err = unix.Openat2(rfd, dir, &how)
			if err != unix.EINTR && err != unix.EAGAIN {
				return
			}
		}
	}); cerr != nil {
		return nil, false, cerr
	}
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), dir), true, nil
	case err == unix.ENOSYS || err == unix.EPERM || err == unix.ELOOP || err == unix.EXDEV || err == unix.EINVAL:
		return nil, false, nil
	}
	return nil, true, &os.PathError{Op: "openat2", Path: dir, Err: err}
}

// mkdirBeneath creates the directory name (one name) in the directory
// parent, or finds it there, and opens it as openBeneath does: one
// mkdirat(2) and one openat2(2), where os.Root walks the path for each. ok
// is false where openBeneath's would be (the caller goes through os.Root).
func mkdirBeneath(parent *os.File, name string) (f *os.File, ok bool, err error) {
	if !oneName(name) {
		return nil, false, nil
	}
	if cerr := control(parent, func(pfd int) {
		for {
			err = unix.Mkdirat(pfd, name, 0o755)
			if err != unix.EINTR {
				return
			}
		}
	}); cerr != nil {
		return nil, false, cerr
	}
	if err != nil && err != unix.EEXIST {
		return nil, true, &os.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	return openBeneath(parent, name)
}

// createAnon creates an unnamed file for writing in the directory dir
// (O_TMPFILE). errors.ErrUnsupported where the file system cannot.
func createAnon(dir *os.File) (*os.File, error) {
	var fd int
	var err error
	if cerr := control(dir, func(dfd int) {
		for {
			fd, err = unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
			if err != unix.EINTR {
				return
			}
		}
	}); cerr != nil {
		return nil, cerr
	}
	switch err {
	case nil:
		return os.NewFile(uintptr(fd), "(unnamed)"), nil
	case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
		return nil, errors.ErrUnsupported
	}
	return nil, &os.PathError{Op: "openat O_TMPFILE", Path: dir.Name(), Err: err}
}

// linkAnon gives the unnamed file f the name (one name, no '/') in the
// directory dir. A name that exists fails with an error that satisfies
// errors.Is(err, fs.ErrExist). Without the privilege linkat's AT_EMPTY_PATH
// asks before Linux 6.10, the file is linked through /proc/self/fd.
func linkAnon(f, dir *os.File, name string) error {
	if !oneName(name) {
		return &os.LinkError{Op: "linkat", Old: f.Name(), New: name, Err: syscall.EINVAL}
	}
	var err, ferr error
	cerr := control(dir, func(dfd int) {
		ferr = control(f, func(fd int) {
			err = unix.Linkat(fd, "", dfd, name, unix.AT_EMPTY_PATH)
			if err == unix.ENOENT || err == unix.EPERM {
				err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dfd, name, unix.AT_SYMLINK_FOLLOW)
			}
		})
	})
	if cerr != nil {
		return cerr
	}
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: f.Name(), New: name, Err: err}
	}
	return nil
}

// removeAt removes the file name (one name) from the directory dir.
func removeAt(dir *os.File, name string) error {
	if !oneName(name) {
		return &os.PathError{Op: "unlinkat", Path: name, Err: syscall.EINVAL}
	}
	var err error
	if cerr := control(dir, func(dfd int) { err = unix.Unlinkat(dfd, name, 0) }); cerr != nil {
		return cerr
	}
	if err != nil {
		return &os.PathError{Op: "unlinkat", Path: name, Err: err}
	}
	return nil
}
