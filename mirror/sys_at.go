//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package mirror

import (
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A Group creates and renames its files by the file descriptor of their
// directory: openat(2) and renameat(2) of one name each. os.Root does the
// same, and two calls more for each: os.OpenFile tries to add every file to
// the runtime's poller (four fcntl(2) and an epoll_ctl(2) that a regular
// file refuses), and Root.Rename lstats the new name first. A mirror writes
// a file per page, so these are most of its system calls.

// openDir returns the directory of r, open for *at calls.
func openDir(r *os.Root) (*os.File, error) { return r.Open(".") }

// createAt creates and opens for writing the new file name (one name, no
// '/') in the directory dir: O_EXCL, and O_NOFOLLOW, as os.Root would.
func createAt(dir *os.File, name string) (*os.File, error) {
	if !oneName(name) {
		return nil, &os.PathError{Op: "openat", Path: name, Err: syscall.EINVAL}
	}
	var fd int
	var err error
	if cerr := control(dir, func(dfd int) {
		for {
			fd, err = unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
			if err != unix.EINTR {
				return
			}
		}
	}); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// renameAt renames old to new, both names in the directory dir.
func renameAt(dir *os.File, old, new string) error {
	if !oneName(old) || !oneName(new) {
		return &os.LinkError{Op: "renameat", Old: old, New: new, Err: syscall.EINVAL}
	}
	var err error
	if cerr := control(dir, func(dfd int) {
		for {
			err = unix.Renameat(dfd, old, dfd, new)
			if err != unix.EINTR {
				return
			}
		}
	}); cerr != nil {
		return cerr
	}
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: old, New: new, Err: err}
	}
	return nil
}

// oneName reports whether name is one name in a directory: not empty, not
// "." or "..", without '/' or NUL.
func oneName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// control calls fn with the descriptor of f.
func control(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}

// statAt reports, without following a symlink, whether the directory dir
// holds name (one name): nil if it does.
func statAt(dir *os.File, name string) error {
	if !oneName(name) {
		return &os.PathError{Op: "fstatat", Path: name, Err: syscall.EINVAL}
	}
	var st unix.Stat_t
	var err error
	if cerr := control(dir, func(dfd int) { err = unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); cerr != nil {
		return cerr
	}
	if err != nil {
		return &os.PathError{Op: "fstatat", Path: name, Err: err}
	}
	return nil
}
