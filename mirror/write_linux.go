//go:build linux

package mirror

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// fastSync makes a whole group durable on Linux with one syncfs(2) of the
// mirror's file system, where WriteAll would otherwise fsync each of its
// files (step 2) or directories (step 4): the cost of a group then hardly
// grows with its size, at the price of also writing back whatever other
// programs wrote to that file system. WriteAll uses it for groups of
// groupSync or more.
//
// syncfs reports a write-back error only since Linux 5.8, only if it
// happened since the descriptor it is given was opened, and only once per
// descriptor. So the root is opened for it once, with the Mirror, and never
// anew (a new descriptor would miss an error of a write-back that ran
// between a file's write and the sync); older kernels do without it; and a
// group that began before another group's syncfs failed does not trust
// its own, since that error may have been one of its files': it fsyncs each
// instead, which reports each file's own error.
type fastSync struct {
	f     *os.File // the mirror's root; nil: no syncfs
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
	s.f, _ = r.Open(".")
}

func (s *fastSync) close() {
	if s.f != nil {
		s.f.Close()
	}
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
