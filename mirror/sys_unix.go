//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package mirror

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// A writer holds an flock on its temp file until after the rename, so a temp
// file is stale when it is unlocked; the minute covers the moment between
// its creation and its lock.
const (
	staleAge     = time.Minute
	holdTempOpen = true
)

// lockFile takes an exclusive flock on f, held until f is closed.
func lockFile(f *os.File) error {
	return flock(f, syscall.LOCK_EX)
}

// tryLock takes an exclusive flock on f if no one holds one, reporting
// whether it did.
func tryLock(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if ferr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return nil
}

// syncDir fsyncs the directory name of r, so that the names in it are
// durable.
func syncDir(r *os.Root, name string) error {
	d, err := r.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// processAlive reports whether process pid may be running: false only when
// the kernel says there is no such process. pid 0 (unknown) counts as alive.
func processAlive(pid int) bool {
	if pid <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
