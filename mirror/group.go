package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
)

// A Group stages files for one Commit and keeps the directories they go
// into open until then: staging a file in a directory the group has open
// takes one openat(2), and its rename one renameat(2), where Stage and
// Commit walk the whole path through the root for each (an openat and a
// close per element, twice for a rename). A crawler commits hundreds of
// pages of a few directories at a time. The directories are os.Roots
// opened inside the mirror's, so nothing staged can leave it either.
//
// A Group is for one goroutine; Commit ends it. The files it stages are
// Staged like Stage's, and Commit of the mirror takes them too.
type Group struct {
	m     *Mirror
	dirs  map[string]*groupDir
	files []*Staged
	done  bool
}

type groupDir struct {
	root *os.Root
	fd   *os.File // root's directory, for createAt and renameAt, from its second file on; nil until then or where there are none
	n    int      // files staged in it
	made []string // directories created for it: their parents need an fsync
}

// Group returns an empty group.
func (m *Mirror) Group() *Group {
	return &Group{m: m, dirs: map[string]*groupDir{}}
}

// Stage is Mirror.Stage for a file of the group, which Commit makes
// durable with the others.
func (g *Group) Stage(rel string, data []byte) (*Staged, error) {
	if g.done {
		return nil, fmt.Errorf("mirror: write %s: group %w", rel, errDone)
	}
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	d, err := g.dir(path.Dir(rel))
	if err != nil {
		return nil, fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	f, name, err := d.createTemp()
	if err != nil {
		return nil, fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	s := &Staged{rel: rel, tmp: path.Join(path.Dir(rel), name), f: f, dirs: d.made, size: len(data), dir: d.root, dirf: d.fd}
	if _, err := f.Write(data); err != nil {
		g.m.Discard(s)
		return nil, fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	g.files = append(g.files, s)
	return s, nil
}

// Commit commits the files staged in the group, as Mirror.Commit, returns
// their errors in the order they were staged, and closes the group's
// directories.
func (g *Group) Commit() []error {
	if g.done {
		return nil
	}
	errs := g.m.Commit(g.files)
	g.close()
	return errs
}

// close closes the group's directories; files it staged and did not
// commit are discarded first.
func (g *Group) close() {
	for _, s := range g.files {
		g.m.Discard(s)
	}
	for _, d := range g.dirs {
		if d.fd != nil {
			d.fd.Close()
		}
		if d.root != g.m.root {
			d.root.Close()
		}
	}
	g.dirs, g.done = nil, true
}

// dir returns the group's open directory dir (relative to the mirror root),
// creating it and its missing parents first if need be.
func (g *Group) dir(dir string) (*groupDir, error) {
	if d := g.dirs[dir]; d != nil {
		return d, nil
	}
	d := &groupDir{root: g.m.root}
	if dir != "." {
		r, err := g.m.root.OpenRoot(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if d.made, err = g.m.mkdirs(dir); err == nil {
				r, err = g.m.root.OpenRoot(dir)
			}
		}
		if err != nil {
			return nil, err
		}
		d.root = r
	}
	g.dirs[dir] = d
	return d, nil
}

// createTemp creates and locks a new temp file in the directory and returns
// it with its name: by the directory's descriptor from the second file on
// (opening it costs about what it saves a file), through root before.
func (d *groupDir) createTemp() (*os.File, string, error) {
	d.n++
	if d.n == 2 {
		fd, err := openDir(d.root)
		if err != nil {
			return nil, "", err
		}
		d.fd = fd
	}
	if d.fd == nil {
		return createTempIn(d.root, ".")
	}
	return newTemp(".", func(name string) (*os.File, error) { return createAt(d.fd, name) }, d.root.Remove)
}

// pid names this process in its temp files' names.
var pid = os.Getpid()

// createTempIn creates and locks a new temp file in the directory dir of
// r, and returns it with its name in r.
func createTempIn(r *os.Root, dir string) (*os.File, string, error) {
	return newTemp(dir, func(name string) (*os.File, error) {
		return r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}, r.Remove)
}

// newTemp draws names for a temp file in dir until create makes one, locks
// it, and returns it with its name; remove takes it back if it cannot be
// locked.
func newTemp(dir string, create func(string) (*os.File, error), remove func(string) error) (*os.File, string, error) {
	for range 10 {
		name := path.Join(dir, fmt.Sprintf("%s%d-%016x", tempPrefix, pid, rand.Uint64()))
		f, err := create(name)
		switch {
		case err == nil:
			if err := lockFile(f); err != nil {
				f.Close()
				remove(name)
				return nil, "", err
			}
			return f, name, nil
		case errors.Is(err, fs.ErrExist):
			// Another writer drew the same name: draw again.
		default:
			return nil, "", err
		}
	}
	return nil, "", errors.New("cannot create a temp file")
}
