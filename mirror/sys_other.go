//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package mirror

import (
	"errors"
	"os"
	"time"
)

// Without flock(2) a temp file is taken for stale after an hour; the temp
// file is closed before its rename (Windows cannot rename an open file).
const (
	staleAge     = time.Hour
	holdTempOpen = false
)

func lockFile(*os.File) error { return nil }

func tryLock(*os.File) (bool, error) { return true, nil }

// syncDir does nothing: directories cannot be fsynced here (restic does the
// same on Windows).
func (m *Mirror) syncDir(string) error { return nil }

// processAlive cannot tell here: every process counts as alive.
func processAlive(int) bool { return true }

// Here a Group goes through os.Root for every file (see sys_at.go):
// openDir gives no directory, so createAt and renameAt are never called.
func openDir(*os.Root) (*os.File, error) { return nil, nil }

func createAt(*os.File, string) (*os.File, error) { return nil, errors.ErrUnsupported }

func renameAt(*os.File, string, string) error { return errors.ErrUnsupported }

func statAt(*os.File, string) error { return errors.ErrUnsupported }
