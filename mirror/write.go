package mirror

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
)

// File is one copy to write: its name relative to the mirror root and its
// content.
type File struct {
	Rel  string
	Data []byte
}

// groupSync is the number of files, or of directories, from which a group
// is made durable by one sync of the whole file system (fastSync, where
// there is one) instead of an fsync of each.
const groupSync = 8

// maxSyncers bounds the goroutines that create, or fsync, the files of one
// group.
const maxSyncers = 16

// Write stores data as the file rel atomically and durably: it is WriteAll
// of that one file.
func (m *Mirror) Write(rel string, data []byte) error {
	return m.WriteAll([]File{{Rel: rel, Data: data}})[0]
}

// WriteAll writes files atomically and durably as one group: errs[i] is
// files[i]'s outcome (nil: the file is on disk under its name, and survives
// a crash). Missing parent directories are created. A name that Path could
// not produce (not local, "..", a backslash, a temp file's name) fails with
// ErrUnsafePath.
//
// It takes restic local.Save's steps, each for the whole group before the
// next, so that the cost of making the group durable is shared:
//
//  1. create a temp file in the file's directory, flock it, write the data;
//  2. make every temp file durable: an fsync of each, or one fastSync;
//  3. rename each temp file over its name, then close it, which releases
//     the flock (held until then so that another process's Open never
//     takes a live temp file for a crashed writer's);
//  4. make every directory that changed durable: an fsync of each, once,
//     and of the parents of the directories the group created (another
//     process may have created one and not yet synced its parent), or one
//     fastSync.
//
// On Linux a group that fastSync syncs whole writes unnamed temp files
// instead, which step 3 links under their names (write_linux.go).
//
// A file that fails before its rename keeps its old content, and its temp
// file is removed; a file whose directory cannot be synced is in place but
// not known durable, and has an error. Two files of one group with the
// same name leave the later one.
func (m *Mirror) WriteAll(files []File) []error {
	g := group{m: m, dirs: map[string]*dir{}, since: m.fast.epoch(), whole: m.fast.whole(len(files))}
	defer g.close()
	errs := make([]error, len(files))
	temps := make([]*temp, len(files))
	dirs := make([]*dir, len(files))
	for i, f := range files {
		dirs[i], errs[i] = g.dirOf(f)
	}
	for i, err := range each(len(files), func(i int) error {
		if errs[i] != nil {
			return errs[i]
		}
		var err error
		temps[i], err = g.create(i, files[i], dirs[i])
		return err
	}) {
		errs[i] = err
	}
	g.syncTemps(temps, errs)
	for i, t := range temps {
		if t != nil {
			errs[i] = g.rename(t, errs[i])
		}
	}
	g.syncDirs(temps, errs)
	for i, t := range temps {
		if t != nil && errs[i] != nil {
			errs[i] = fmt.Errorf("mirror: write %s: %w", t.rel, errs[i])
		}
	}
	return errs
}

// A group is the directories one WriteAll writes into. Each is opened once,
// as an os.Root inside the mirror's, so that its files are created and
// renamed by their own name rather than by a walk of their whole path.
type group struct {
	m      *Mirror
	dirs   map[string]*dir
	since  uint64  // fastSync's epoch when the group began
	whole  bool    // fastSync is to sync the group whole
	linked []*temp // unnamed files given their name, open until step 4
}

// dir is a directory of a group.
type dir struct {
	name string   // relative to the mirror root; "." for the root
	root *os.Root // nil if err
	err  error    // why nothing can be written into it
	made bool     // created by this group
	fd   *os.File // the directory itself, for unnamed files; nil until one
}

// A temp is a file of a group on its way to its name.
type temp struct {
	rel     string
	dir     *dir
	name    string   // the temp file's name in dir; "" while unnamed
	f       *os.File // open until after the rename (the flock of a named one with it)
	renamed bool     // or linked: the file has its name
	i       int      // its index in the group
}

// dir returns the group's directory name, opened, and created first if it
// is missing.
func (g *group) dir(name string) (*dir, error) {
	if d := g.dirs[name]; d != nil {
		return d, d.err
	}
	d := &dir{name: name, root: g.m.root}
	if name != "." {
		d.root, d.made, d.err = g.open(name)
	}
	g.dirs[name] = d
	return d, d.err
}

// open opens the directory name, creating it if it is missing, by its name
// in its parent, which the group opens first: one call each, where a walk
// from the mirror's root would take one per element of the path. A
// symlink that leaves the parent but not the mirror (one the mirror's root
// would follow) is opened through the mirror's root.
func (g *group) open(name string) (r *os.Root, made bool, err error) {
	parent, err := g.dir(path.Dir(name))
	if err != nil {
		return nil, false, err
	}
	base := path.Base(name)
	r, err = parent.root.OpenRoot(base)
	if errors.Is(err, fs.ErrNotExist) {
		made = true
		if err = parent.root.Mkdir(base, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
			r, err = parent.root.OpenRoot(base)
		}
	} else if err != nil {
		r, err = g.m.root.OpenRoot(name)
	}
	return r, made, err
}

// close closes the files linked and the group's directories.
func (g *group) close() {
	for _, t := range g.linked {
		t.f.Close()
	}
	for _, d := range g.dirs {
		if d.fd != nil {
			d.fd.Close()
		}
		if d.root != nil && d.root != g.m.root {
			d.root.Close()
		}
	}
}

// dirOf is the part of step 1 that opens (and creates) the directory of f,
// one file after the other: the group's directories are its own.
func (g *group) dirOf(f File) (*dir, error) {
	if err := checkRel(f.Rel); err != nil {
		return nil, err
	}
	d, err := g.dir(path.Dir(f.Rel))
	if err != nil {
		return nil, fmt.Errorf("mirror: write %s: %w", f.Rel, err)
	}
	if g.whole {
		g.m.fast.prepare(d)
	}
	return d, nil
}

// create is the rest of step 1 for f, the group's file i, in the directory
// d: the files of a group are created and written on several goroutines
// at once (each). A process that writes while it crawls has its threads
// busy with pages: one goroutine creating a large group, a system call
// after the other, would wait for a processor after each.
func (g *group) create(i int, f File, d *dir) (*temp, error) {
	var err error
	t := &temp{rel: f.Rel, dir: d, i: i}
	if g.whole {
		t.f = g.m.fast.createUnnamed(d)
	}
	if t.f == nil {
		if t.f, t.name, err = createTemp(d.root); err != nil {
			return nil, fmt.Errorf("mirror: write %s: %w", f.Rel, err)
		}
	}
	if _, err := t.f.Write(f.Data); err != nil {
		t.f.Close()
		if t.name != "" {
			d.root.Remove(t.name)
		}
		return nil, fmt.Errorf("mirror: write %s: %w", f.Rel, err)
	}
	if g.m.written != nil {
		g.m.written(f.Rel)
	}
	return t, nil
}

// syncTemps is step 2: errs[i] gets the error of temps[i]'s fsync.
func (g *group) syncTemps(temps []*temp, errs []error) {
	var live []int
	for i, t := range temps {
		if t != nil {
			live = append(live, i)
		}
	}
	if len(live) == 0 || g.m.fast.group(len(live), g.since) {
		return
	}
	for k, err := range each(len(live), func(k int) error { return temps[live[k]].f.Sync() }) {
		if err != nil {
			errs[live[k]] = fmt.Errorf("fsync: %w", err)
		}
	}
}

// rename is step 3 for t, unless an earlier step failed (err): either way
// a named temp file is closed, and removed unless it took its name.
func (g *group) rename(t *temp, err error) error {
	if err == nil && g.m.beforeRename != nil {
		err = g.m.beforeRename(t.rel, t.f)
	}
	if err == nil && t.name == "" {
		if err = g.m.fast.link(t); err == nil && t.name == "" {
			t.renamed = true
			g.linked = append(g.linked, t)
			return nil
		}
	}
	if err == nil && !holdTempOpen {
		err = t.f.Close()
	}
	if err == nil {
		err = t.dir.root.Rename(t.name, path.Base(t.rel))
	}
	t.renamed = err == nil
	if cerr := t.f.Close(); err == nil && holdTempOpen {
		err = cerr
	}
	if !t.renamed && t.name != "" {
		t.dir.root.Remove(t.name)
	}
	return err
}

// syncDirs is step 4: each file renamed into a directory whose fsync fails
// gets that error.
func (g *group) syncDirs(temps []*temp, errs []error) {
	deps := map[string][]int{} // directory → the files whose names it holds
	for i, t := range temps {
		if t == nil || !t.renamed {
			continue
		}
		deps[t.dir.name] = append(deps[t.dir.name], i)
		if t.dir.made {
			for _, d := range prefixes(t.dir.name) {
				deps[path.Dir(d)] = append(deps[path.Dir(d)], i)
			}
		}
	}
	if len(deps) == 0 || g.m.fast.group(len(deps)+len(g.linked), g.since) {
		return
	}
	// A linked file's new link count is in its inode.
	for k, err := range each(len(g.linked), func(k int) error { return g.linked[k].f.Sync() }) {
		if i := g.linked[k].i; err != nil {
			errs[i] = cmp.Or(errs[i], fmt.Errorf("fsync: %w", err))
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for d := range deps {
			if !yield(d) {
				return
			}
		}
	})
	for k, err := range each(len(names), func(k int) error { return g.syncDir(names[k]) }) {
		if err == nil {
			continue
		}
		for _, i := range deps[names[k]] {
			if errs[i] == nil {
				errs[i] = fmt.Errorf("fsync directory %s: %w", names[k], err)
			}
		}
	}
}

// syncDir fsyncs the directory name: by the group's own root for it if
// the group has one, else through the mirror's.
func (g *group) syncDir(name string) error {
	if d := g.dirs[name]; d != nil && d.root != nil {
		return syncDir(d.root, ".")
	}
	return syncDir(g.m.root, name)
}

// prefixes returns dir ("a/b/c") and each of its parents but the root
// ("a", "a/b", "a/b/c").
func prefixes(dir string) []string {
	var dirs []string
	for d := dir; d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	slices.Reverse(dirs)
	return dirs
}

// each runs f(0..n-1) on up to maxSyncers goroutines and returns the
// errors; it returns once every call has. The goroutines are its own and
// end with it.
func each(n int, f func(int) error) []error {
	errs := make([]error, n)
	if n == 1 {
		errs[0] = f(0)
		return errs
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, maxSyncers) {
		wg.Go(func() {
			for k := range next {
				errs[k] = f(k)
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
	return errs
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
	if err := syncDir(m.root, path.Dir(rel)); err != nil {
		return fmt.Errorf("mirror: remove %s: %w", rel, err)
	}
	return nil
}
