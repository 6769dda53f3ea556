package mirror

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"sync"
)

// groupSync is the number of files (or directories) from which Commit syncs
// the whole file system once (syncfs(2), where there is one) instead of
// fsyncing each: one call that costs about as much as two or three fsyncs
// on ext4, whatever the group's size.
const groupSync = 8

// maxSyncers bounds the goroutines that fsync the files of one group.
const maxSyncers = 16

var errDone = errors.New("already committed or discarded")

// Commit makes staged files durable under their names as one group: it
// fsyncs every temp file, renames each over its name, releases it, and
// fsyncs every directory that changed, each once, in the package doc's
// order. So the cost of the fsyncs is shared by the group: a crawler commits
// what its workers staged since the last pass, just before the pass that
// records it.
//
// It returns one error per file, nil for a file that is durable under its
// name. A file whose fsync or rename failed keeps its old content and its
// temp file is removed; a file renamed into a directory whose fsync failed
// is in place but not known durable. Every staged file is done after Commit,
// whatever the errors.
func (m *Mirror) Commit(files []*Staged) []error {
	errs := make([]error, len(files))
	live := make([]int, 0, len(files))
	for i, s := range files {
		if s == nil || s.done {
			errs[i] = fmt.Errorf("mirror: commit: %w", errDone)
			continue
		}
		live = append(live, i)
	}
	// 2. fsync the temp files (their data and inodes).
	if !m.syncGroup(len(live)) {
		each(len(live), func(k int) error {
			s := files[live[k]]
			errs[live[k]] = s.f.Sync()
			return nil
		})
	}
	// 3. rename, then release the flock: another process's Open must not
	// take a temp file it could still see for a crashed writer's.
	dirs := map[string][]int{}
	var linked []int // unnamed files given their name: their inodes changed too
	defer func() {
		for _, i := range linked {
			files[i].f.Close()
		}
	}()
	for _, i := range live {
		s := files[i]
		if errs[i] == nil && m.beforeRename != nil {
			errs[i] = m.beforeRename(s.tmp)
		}
		if errs[i] == nil && !holdTempOpen {
			errs[i] = s.f.Close()
		}
		if errs[i] == nil {
			errs[i] = s.rename(m)
		}
		s.done = true
		var cerr error
		if s.anon && errs[i] == nil {
			linked = append(linked, i) // closed after step 4
		} else {
			cerr = s.f.Close()
		}
		if errs[i] != nil {
			s.remove(m)
			errs[i] = fmt.Errorf("mirror: write %s: %w", s.rel, errs[i])
			continue
		}
		if holdTempOpen && cerr != nil {
			errs[i] = fmt.Errorf("mirror: write %s: %w", s.rel, cerr)
		}
		dirs[path.Dir(s.rel)] = append(dirs[path.Dir(s.rel)], i)
		for _, d := range s.dirs {
			dirs[path.Dir(d)] = append(dirs[path.Dir(d)], i)
		}
	}
	// 4. fsync each directory that gained a name, once, and each unnamed
	// file that gained one: its link count is in its inode.
	if len(dirs) == 0 || m.syncGroup(len(dirs)+len(linked)) {
		return errs
	}
	lerrs := each(len(linked), func(k int) error { return files[linked[k]].f.Sync() })
	for k, err := range lerrs {
		if i := linked[k]; err != nil && errs[i] == nil {
			errs[i] = fmt.Errorf("mirror: write %s: fsync: %w", files[i].rel, err)
		}
	}
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	derrs := each(len(names), func(k int) error { return m.syncDir(names[k]) })
	for k, err := range derrs {
		if err == nil {
			continue
		}
		for _, i := range dirs[names[k]] {
			if errs[i] == nil {
				errs[i] = fmt.Errorf("mirror: write %s: fsync directory %s: %w", files[i].rel, names[k], err)
			}
		}
	}
	return errs
}

// syncGroup syncs the whole file system of the mirror when a group of n
// files or directories is large enough for that to be cheaper, and reports
// whether it did. A failed syncfs reports false, so the caller falls back to
// fsyncing each, which reports the error where it belongs.
func (m *Mirror) syncGroup(n int) bool {
	if n < groupSync {
		return false
	}
	return m.syncFS() == nil
}

// each runs f(0..n-1) on up to maxSyncers goroutines and returns the errors.
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
