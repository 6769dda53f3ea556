package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// tempPrefix starts the name of every temp file, which is tempPrefix, the
// writer's process id, '-' and 16 random hex digits. Path never puts a '#'
// in a name, so no page is ever named like a temp file.
const tempPrefix = ".spider-tmp#"

// pid names this process in its temp files' names.
var pid = os.Getpid()

// tempName draws a name for a temp file.
func tempName() string {
	return fmt.Sprintf("%s%d-%016x", tempPrefix, pid, rand.Uint64())
}

// createTemp creates a new temp file in the directory r, flocks it and
// returns it with its name in r.
func createTemp(r *os.Root) (*os.File, string, error) {
	for range 10 {
		name := tempName()
		f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // another writer drew the same name
		}
		if err != nil {
			return nil, "", err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			r.Remove(name)
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", errors.New("cannot create a temp file")
}

// removeStaleTemps removes, anywhere in the tree, the temp files of writers
// that crashed: every temp file that no process has flocked and that either
// names a process that no longer exists (a spider killed mid-write, cleaned
// by its restart) or was last modified more than staleAge ago (a fresh one
// of a live process may belong to a writer that has created but not yet
// locked it). It walks the whole tree, so its cost grows with the number of
// directories. Directories are never removed.
func (m *Mirror) removeStaleTemps() error {
	return fs.WalkDir(m.root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && name != "." {
				return nil // removed while we walk
			}
			return err
		}
		if d.Type().IsRegular() && strings.HasPrefix(d.Name(), tempPrefix) {
			return m.removeIfStale(name)
		}
		return nil
	})
}

func (m *Mirror) removeIfStale(name string) error {
	f, err := m.root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // renamed or removed meanwhile
	} else if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if time.Since(fi.ModTime()) < staleAge && processAlive(tempPID(path.Base(name))) {
		return nil
	}
	if free, err := tryLock(f); err != nil || !free {
		return err
	}
	if err := m.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// tempPID returns the process id written in a temp file's name, or 0 if
// there is none (an older name).
func tempPID(name string) int {
	rest := strings.TrimPrefix(name, tempPrefix)
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
