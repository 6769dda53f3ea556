//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package mirror

import (
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
func syncDir(*os.Root, string) error { return nil }

// processAlive cannot tell here: every process counts as alive.
func processAlive(int) bool { return true }
