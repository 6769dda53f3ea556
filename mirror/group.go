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
	m         *Mirror
	dirs      map[string]*groupDir
	files     []*Staged
	done      bool
	noReplace bool
}

type groupDir struct {
	root *os.Root // nil where fd was opened beneath the mirror's root (openBeneath)
	fd   *os.File // the directory, for createAt, renameAt and unnamed files: from its first file on if opened beneath the root, else from its second; nil until then or where there are none
	n    int      // files staged in it
	made []string // directories created for it: their parents need an fsync
}

// Group returns an empty group.
func (m *Mirror) Group() *Group {
	return &Group{m: m, dirs: map[string]*groupDir{}}
}

// NoReplace makes the group write new files only: Commit gives a file its
// name only if no file has it, in one link(2) that either makes the whole
// file appear under its name or fails, and fails a file whose name exists
// with an error that satisfies errors.Is(err, fs.ErrExist), leaving that
// name as it was (Stage fails it already if the name exists then). So a
// writer that may be killed and then outlived by its last system call
// (internal/writer's helper) can never put one copy over another. It
// needs unnamed files (O_TMPFILE on Linux: Unnamed); where a file of the
// group cannot be one (no O_TMPFILE, or a directory that can only be
// reached through os.Root's walk), Stage fails it with an error that
// satisfies errors.Is(err, errors.ErrUnsupported).
func (g *Group) NoReplace() { g.noReplace = true }

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
	if g.noReplace && d.exists(path.Base(rel)) {
		// Commit's link would fail; spare the file's write and sync.
		return nil, fmt.Errorf("mirror: write %s: %w", rel, fs.ErrExist)
	}
	f, name, err := d.createTemp(g.m.unnamed())
	if err != nil {
		return nil, fmt.Errorf("mirror: write %s: %w", rel, err)
	}
	s := &Staged{rel: rel, f: f, dirs: d.made, size: len(data), dir: d.root, dirf: d.fd, anon: name == "", noReplace: g.noReplace}
	if !s.anon && g.noReplace {
		s.tmp = path.Join(path.Dir(rel), name)
		g.m.Discard(s)
		return nil, fmt.Errorf("mirror: write %s: a new file only, and no unnamed file here: %w", rel, errors.ErrUnsupported)
	}
	if !s.anon {
		s.tmp = path.Join(path.Dir(rel), name)
	}
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
		if d.root != nil && d.root != g.m.root {
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
	d, err := g.open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		d, err = g.create(dir)
	}
	if err != nil {
		return nil, err
	}
	g.dirs[dir] = d
	return d, nil
}

// create creates the directory dir and its missing parents, and opens it.
// Where its parent can be opened beneath the root (a topic's directory in
// its forum's, which the group usually has open already), that is one
// mkdirat(2) in the parent; else os.Root walks the path.
func (g *Group) create(dir string) (*groupDir, error) {
	if parent, name := path.Split(dir); parent != "" {
		pd, err := g.dir(path.Clean(parent))
		if err != nil {
			return nil, err
		}
		if pd.fd != nil {
			f, ok, err := mkdirBeneath(pd.fd, name)
			if ok {
				if err != nil {
					return nil, err
				}
				return &groupDir{fd: f, made: prefixes(dir)}, nil
			}
		}
	}
	made, err := g.m.mkdirs(dir)
	if err != nil {
		return nil, err
	}
	d, err := g.open(dir)
	if err != nil {
		return nil, err
	}
	d.made = made
	return d, nil
}

// open opens the directory dir of the mirror: in one call beneath the
// root where the kernel can (openBeneath), else through os.Root.
func (g *Group) open(dir string) (*groupDir, error) {
	if dir == "." {
		return &groupDir{root: g.m.root}, nil
	}
	if rootf := g.m.rootDir(); rootf != nil {
		if f, ok, err := openBeneath(rootf, dir); ok {
			if err != nil {
				return nil, err
			}
			return &groupDir{fd: f}, nil
		}
	}
	r, err := g.m.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &groupDir{root: r}, nil
}

// exists reports whether the directory holds name (anything by that name,
// or a name it cannot tell about).
func (d *groupDir) exists(name string) bool {
	var err error
	if d.fd != nil {
		err = statAt(d.fd, name)
	} else {
		_, err = d.root.Lstat(name)
	}
	return !errors.Is(err, fs.ErrNotExist)
}

// createTemp creates a new temp file in the directory and returns it with
// its name: with unnamed, where the directory is open and the file system
// can, a file without a name ("") that Commit links into place; otherwise a
// locked temp file, by the directory's descriptor where it is open (from
// the second file on for a directory opened through os.Root: opening it
// costs about what it saves a file; from the first with unnamed, which
// needs it), through os.Root before.
func (d *groupDir) createTemp(unnamed bool) (*os.File, string, error) {
	d.n++
	if d.fd == nil && (d.n == 2 || unnamed) {
		fd, err := openDir(d.root)
		if err != nil {
			return nil, "", err
		}
		d.fd = fd
	}
	if d.fd == nil {
		return createTempIn(d.root, ".")
	}
	if unnamed {
		f, err := createAnon(d.fd)
		if !errors.Is(err, errors.ErrUnsupported) {
			return f, "", err
		}
	}
	remove := func(name string) error { return removeAt(d.fd, name) }
	if d.root != nil {
		remove = d.root.Remove
	}
	return newTemp(".", func(name string) (*os.File, error) { return createAt(d.fd, name) }, remove)
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

// tempName draws a name for a temp file.
func tempName() string {
	return fmt.Sprintf("%s%d-%016x", tempPrefix, pid, rand.Uint64())
}

// newTemp draws names for a temp file in dir until create makes one, locks
// it, and returns it with its name; remove takes it back if it cannot be
// locked.
func newTemp(dir string, create func(string) (*os.File, error), remove func(string) error) (*os.File, string, error) {
	for range 10 {
		name := path.Join(dir, tempName())
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
