package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strings"
	"time"
)

// tempPrefix starts the name of every temp file. Path never puts a '#' in a
// name, so no page is ever named like a temp file.
const tempPrefix = ".spider-tmp#"

// Write stores data as the file rel atomically and durably, creating its
// parent directories, in the order the package doc gives: a reader sees the
// old content or the new, never a part, whatever the other goroutines and
// processes writing rel do. A rel that Path could not produce (not local,
// "..", backslash, a temp file's name) is rejected with ErrUnsafePath.
func (m *Mirror) Write(rel string, data []byte) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if err := m.write(rel, data); err != nil {
		return fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	return nil
}

func (m *Mirror) write(rel string, data []byte) error {
	dir := path.Dir(rel)
	f, tmp, err := m.createTemp(dir)
	if err != nil {
		return err
	}
	renamed, closed := false, false
	defer func() {
		if !closed {
			f.Close()
		}
		if !renamed {
			m.root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if m.beforeRename != nil {
		if err := m.beforeRename(tmp); err != nil {
			return err
		}
	}
	if !holdTempOpen {
		closed = true
		if err := f.Close(); err != nil {
			return err
		}
	}
	if err := m.root.Rename(tmp, rel); err != nil {
		return err
	}
	renamed = true
	var cerr error
	if !closed {
		closed = true
		cerr = f.Close()
	}
	if err := m.syncDir(dir); err != nil {
		return err
	}
	return cerr
}

// createTemp creates and locks a new temp file in dir, creating dir first if
// it is missing.
func (m *Mirror) createTemp(dir string) (*os.File, string, error) {
	made := false
	for range 10 {
		tmp := path.Join(dir, fmt.Sprintf("%s%016x", tempPrefix, rand.Uint64()))
		f, err := m.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		switch {
		case err == nil:
			if err := lockFile(f); err != nil {
				f.Close()
				m.root.Remove(tmp)
				return nil, "", err
			}
			return f, tmp, nil
		case errors.Is(err, fs.ErrNotExist) && !made:
			if err := m.mkdirs(dir); err != nil {
				return nil, "", err
			}
			made = true
		case errors.Is(err, fs.ErrExist):
			// Another writer drew the same name: draw again.
		default:
			return nil, "", err
		}
	}
	return nil, "", errors.New("cannot create a temp file")
}

// mkdirs creates each missing directory of dir and fsyncs the parent of each
// directory of dir, so that a new directory's name is as durable as the
// file written into it. Parents are synced even for a directory that exists,
// since another process may have created it and not yet synced its parent.
func (m *Mirror) mkdirs(dir string) error {
	if dir == "." {
		return nil
	}
	elems := strings.Split(dir, "/")
	for i := range elems {
		d := strings.Join(elems[:i+1], "/")
		if err := m.root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := m.syncDir(path.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// Remove removes the file rel and fsyncs its directory; an error for a
// missing file satisfies errors.Is(err, fs.ErrNotExist). Empty parent
// directories are left in place.
func (m *Mirror) Remove(rel string) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if err := m.root.Remove(rel); err != nil {
		return err
	}
	if err := m.syncDir(path.Dir(rel)); err != nil {
		return fmt.Errorf("mirror: remove %s: %w", rel, err)
	}
	return nil
}

// removeStaleTemps removes the temp files of crashed writers anywhere in the
// tree (see the package doc).
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
	if time.Since(fi.ModTime()) < staleAge {
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
