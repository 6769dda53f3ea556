//go:build linux

package writer

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ioprio_set(2)'s constants, which x/sys/unix does not name.
const (
	ioprioWhoProcess = 1
	ioprioBestEffort = 2<<13 | 4 // IOPRIO_CLASS_BE, level 4: a nice-0 thread's
)

// idleSupported reports whether this system has an idle scheduling class
// a process can put itself in.
const idleSupported = true

// setIdle puts every thread of the process in the SCHED_IDLE class, and
// reports whether it could. Threads the Go runtime starts later are
// created by these and inherit it; the list of threads is read until a
// reading finds none new. Each thread's I/O priority is set to the
// default class, best effort: left unset, the kernel would derive the idle
// I/O class from SCHED_IDLE, and an I/O scheduler that heeds it
// (mq-deadline, bfq) would hold the helper's syncs back behind every other
// process's I/O for up to seconds. Only its CPU time is to yield.
func setIdle() bool {
	done := map[int]bool{}
	for {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return false
		}
		fresh := false
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh = true
			err = unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0)
			if err != nil && err != unix.ESRCH { // ESRCH: the thread ended meanwhile
				return false
			}
			unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), ioprioBestEffort)
			done[tid] = true
		}
		if !fresh {
			return true
		}
	}
}

// helperAttr makes the kernel kill the helper when its caller dies: it
// would exit at the end of its input anyway, but at idle priority on a busy
// machine it might write for a while first. (The kernel ties this to the
// thread that started the helper, not the process; Go's threads outlive
// their goroutines unless one is locked to its thread, which spider never
// does. Were that thread to end, the helper would die and Commit would go
// on in the calling process.)
func helperAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
