package mirror

import (
	"fmt"
	"os"
	"path"
)

// Lock takes an exclusive lock on the file rel (created empty if missing,
// with its directories) and returns the function that releases it: the
// mirror's own files that several writers read, merge and replace (the
// root index pages, the .spider index) are updated under such a lock so
// that two spiders do not interleave. It blocks until the lock is free;
// holders must keep it briefly. The lock is an flock(2) on a file whose
// inode never changes (the guarded files are replaced by rename, so they
// cannot carry it themselves); it excludes other processes and, since each
// call opens the file anew, other goroutines too. Where Go has no flock
// (Windows) it excludes nothing.
func (m *Mirror) Lock(rel string) (unlock func(), err error) {
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	if dir := path.Dir(rel); dir != "." {
		if err := m.root.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("mirror: lock %s: %w", rel, err)
		}
	}
	f, err := m.root.OpenFile(rel, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("mirror: lock %s: %w", rel, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("mirror: lock %s: %w", rel, err)
	}
	return func() { f.Close() }, nil
}
