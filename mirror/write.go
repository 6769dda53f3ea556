package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
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
// It is Stage then Commit of that one file.
func (m *Mirror) Write(rel string, data []byte) error {
	s, err := m.Stage(rel, data)
	if err != nil {
		return err
	}
	return m.Commit([]*Staged{s})[0]
}

// Staged is data written to a temp file beside its final name: neither
// durable nor visible under that name until Commit, and removed by Discard.
// Its temp file stays open and flocked until then.
type Staged struct {
	rel, tmp string
	f        *os.File
	dirs     []string // directories of rel's path: their parents need an fsync
	size     int
	done     bool
	dir      *os.Root // the open directory of a Group's file, which tmp and rel are in; nil: the mirror root
	dirf     *os.File // dir's descriptor, for renameAt; nil: rename through dir
	// anon: f has no name (a Group's file on Linux, see sys_linux.go), and
	// tmp is empty until rename links it under a temp name.
	anon bool
	// noReplace: rename links f under its name only if the name is free
	// (Group.NoReplace).
	noReplace bool
}

// rename renames the temp file over the file's name; an unnamed file is
// linked under it, or, where the name exists, linked under a temp name
// (locked first, as any temp file) and renamed over it.
func (s *Staged) rename(m *Mirror) error {
	if s.anon {
		err := linkAnon(s.f, s.dirf, path.Base(s.rel))
		if !errors.Is(err, fs.ErrExist) || s.noReplace {
			return err
		}
		if err := lockFile(s.f); err != nil {
			return err
		}
		for range 10 {
			name := tempName()
			err = linkAnon(s.f, s.dirf, name)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return err
			}
			s.tmp = path.Join(path.Dir(s.rel), name)
			return renameAt(s.dirf, name, path.Base(s.rel))
		}
		return errors.New("cannot create a temp file")
	}
	if s.dirf != nil {
		return renameAt(s.dirf, path.Base(s.tmp), path.Base(s.rel))
	}
	if s.dir != nil {
		return s.dir.Rename(path.Base(s.tmp), path.Base(s.rel))
	}
	return m.root.Rename(s.tmp, s.rel)
}

// remove removes the temp file.
func (s *Staged) remove(m *Mirror) {
	switch {
	case s.tmp == "":
		return // an unnamed file: gone once closed
	case s.dir == nil && s.dirf != nil:
		removeAt(s.dirf, path.Base(s.tmp))
		return
	}
	if s.dir != nil {
		s.dir.Remove(path.Base(s.tmp))
		return
	}
	m.root.Remove(s.tmp)
}

// Rel returns the name the file will have once committed.
func (s *Staged) Rel() string { return s.rel }

// Size returns the number of bytes staged.
func (s *Staged) Size() int { return s.size }

// Stage writes data to a new temp file in rel's directory, creating missing
// directories, without any fsync: step 1 and the write of step 2 of the
// package doc's order. Commit or Discard must follow.
func (m *Mirror) Stage(rel string, data []byte) (*Staged, error) {
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	f, tmp, made, err := m.createTemp(path.Dir(rel))
	if err != nil {
		return nil, fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	s := &Staged{rel: rel, tmp: tmp, f: f, dirs: made, size: len(data)}
	if _, err := f.Write(data); err != nil {
		m.Discard(s)
		return nil, fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	return s, nil
}

// Discard removes a staged file that is not to be committed. The names it
// would have replaced are untouched. Discarding a committed or discarded
// file does nothing.
func (m *Mirror) Discard(s *Staged) {
	if s == nil || s.done {
		return
	}
	s.done = true
	s.f.Close()
	s.remove(m)
}

// createTemp creates and locks a new temp file in dir, creating dir first if
// it is missing.
func (m *Mirror) createTemp(dir string) (f *os.File, tmp string, made []string, err error) {
	f, tmp, err = createTempIn(m.root, dir)
	if errors.Is(err, fs.ErrNotExist) {
		if made, err = m.mkdirs(dir); err != nil {
			return nil, "", nil, err
		}
		f, tmp, err = createTempIn(m.root, dir)
	}
	return f, tmp, made, err
}

// mkdirs creates each missing directory of dir, deepest first (most often
// only the last one is missing: one mkdir), and returns every directory of
// dir: Commit fsyncs the parent of each, so that a new directory's name is
// as durable as the file written into it. Parents are synced even for a
// directory that exists, since another process may have created it and not
// yet synced its parent.
func (m *Mirror) mkdirs(dir string) ([]string, error) {
	if dir == "." {
		return nil, nil
	}
	if err := m.mkdirAll(dir); err != nil {
		return nil, err
	}
	return prefixes(dir), nil
}

// prefixes returns dir ("a/b/c") and each of its parents but the root
// ("a", "a/b", "a/b/c"): the directories mkdirs may have created, whose
// parents' entries a commit makes durable.
func prefixes(dir string) []string {
	elems := strings.Split(dir, "/")
	dirs := make([]string, len(elems))
	for i := range elems {
		dirs[i] = strings.Join(elems[:i+1], "/")
	}
	return dirs
}

// mkdirAll creates dir and its missing parents.
func (m *Mirror) mkdirAll(dir string) error {
	err := m.root.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrNotExist) && path.Dir(dir) != "." {
		if err := m.mkdirAll(path.Dir(dir)); err != nil {
			return err
		}
		err = m.root.Mkdir(dir, 0o755)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return err
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
	// A young temp file may be between its creation and its lock, unless
	// the process named in it is gone (killed mid-commit, say): then it
	// is stale at once, so a restarted spider cleans up after a kill.
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

// tempPID returns the process id written in a temp file's name
// (".spider-tmp#PID-RANDOM"), or 0 if there is none (an older name).
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
