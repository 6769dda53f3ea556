package main

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// checkList verifies the list and its mirror without changing anything:
// the format (a malformed line stops the check with its file and line), one
// line per URL, no claim held by a spider that is not running, and every
// copy the list names present in the mirror. It prints one line per kind
// of problem and returns an error (exit 1) if there is any.
//
// A list in PostgreSQL is checked the same way; its schema keeps one line
// per URL and a well-formed line (UNIQUE and CHECK constraints).
func checkList(ctx context.Context, ref listRef, mirrorDir string, stdout io.Writer) error {
	l, err := ref.openExisting(ctx, list.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	running, err := runningSpiders(ctx, l)
	if err != nil {
		return err
	}
	seed := maphash.MakeSeed()
	referenced := map[uint64]struct{}{} // hashes of the files lines name
	var (
		hashes               []uint64 // one per line: duplicates without a set of strings
		lines                int
		deadClaims, missing  int
		firstDead, firstGone string
	)
	err = l.Scan(ctx, func(e *list.Entry) error {
		lines++
		hashes = append(hashes, maphash.String(seed, e.URL))
		if e.Spider != "" && !running[e.Spider] {
			if deadClaims++; firstDead == "" {
				firstDead = e.Spider + " " + e.URL
			}
		}
		if e.File != "" {
			referenced[maphash.String(seed, e.File)] = struct{}{}
			for _, lead := range leads(e.URL, e.File) {
				referenced[maphash.String(seed, lead)] = struct{}{}
			}
			if _, err := os.Stat(filepath.Join(mirrorDir, filepath.FromSlash(e.File))); errors.Is(err, os.ErrNotExist) {
				if missing++; firstGone == "" {
					firstGone = strings.Clone(e.File) // e's strings are the scan's buffer
				}
			}
		}
		return nil
	})
	if err != nil {
		return listErr(err)
	}
	if abs, err := filepath.Abs(mirrorDir); err == nil {
		mirrorDir = abs // named in what follows
	}
	if _, err := os.Stat(mirrorDir); missing > 0 && errors.Is(err, os.ErrNotExist) {
		return usageErr{fmt.Errorf("the mirror directory %s does not exist, yet %s names %s in it", mirrorDir, ref, account.Counted(missing, "copy", "copies")),
			mirrorHint(ref)}
	}
	var dups []string
	if f, ok := l.(fileStore); ok {
		if dups, err = duplicates(ctx, f.List, seed, hashes); err != nil {
			return listErr(err)
		}
	}
	stray, firstStray, err := unreferenced(mirrorDir, seed, referenced)
	if err != nil {
		return err
	}
	problems := 0
	report := func(n int, what, example string) {
		if n > 0 {
			problems++
			fmt.Fprintf(stdout, "PROBLEM %d %s (first: %s)\n", n, what, example)
		}
	}
	fmt.Fprintf(stdout, "list %s: %d lines, format ok\n", ref, lines)
	report(len(dups), "URLs with more than one line", first(dups))
	report(deadClaims, "claims held by spiders that are not running (the next pass of any spider returns them)", firstDead)
	report(missing, "copies named by the list but missing from the mirror directory "+mirrorDir, firstGone)
	report(stray, "files in the mirror that no line names (left alone: delete them if unwanted)", firstStray)
	if problems > 0 {
		hint := "the next pass of any spider returns dead claims; spider list check --repair (list files only) also sets the lines whose copy is missing back to found, to be fetched again, and keeps the first line of a URL, after a backup"
		if stray > 0 && problems == 1 {
			hint = "the stray files are left alone: delete them if unwanted"
		}
		return hintErr{fmt.Errorf("list check found %s", account.Counted(problems, "kind of problem", "kinds of problem")), hint}
	}
	fmt.Fprintln(stdout, "ok: one line per URL, no dead claim, every copy present, no stray file")
	return nil
}

// mirrorHint says where the mirror of the list ref names is recorded.
func mirrorHint(ref listRef) string {
	if ref.pg() {
		return "pass --mirror with the spiders' mirror directory; a list in PostgreSQL records it in its state directory on each machine (" +
			ref.state + ": set state in the config to an absolute path to find it from any directory)"
	}
	return "pass --mirror with the spiders' mirror directory; the list records it (" + list.MirrorRecordPath(ref.path) + ") at a spider's first run"
}

// duplicates returns the URLs with more than one line: lines whose hashes
// collide are read again and compared exactly.
func duplicates(ctx context.Context, l *list.List, seed maphash.Seed, hashes []uint64) ([]string, error) {
	sorted := slices.Clone(hashes)
	slices.Sort(sorted)
	suspect := map[uint64]bool{}
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			suspect[sorted[i]] = true
		}
	}
	if len(suspect) == 0 {
		return nil, nil
	}
	seen := map[string]int{}
	err := l.Scan(ctx, func(e *list.Entry) error {
		if suspect[maphash.String(seed, e.URL)] {
			seen[strings.Clone(e.URL)]++
		}
		return nil
	})
	var dups []string
	for u, n := range seen {
		if n > 1 {
			dups = append(dups, u)
		}
	}
	slices.Sort(dups)
	return dups, err
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// repairList repairs the list (see list.Repair) against the mirror in
// mirrorDir and says what it did.
func repairList(ctx context.Context, ref listRef, mirrorDir string, stdout io.Writer) error {
	if err := ref.fileOnly("spider list check --repair"); err != nil {
		return err
	}
	path := ref.path
	if err := requireList(path); err != nil {
		return err
	}
	l, err := list.Open(path, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		return err
	}
	running, err := runningSpiders(ctx, fileStore{l})
	if err != nil {
		return err
	}
	rep, err := l.Repair(ctx, func(id string) bool { return running[id] }, func(file string) bool {
		_, err := os.Stat(filepath.Join(mirrorDir, filepath.FromSlash(file)))
		return errors.Is(err, os.ErrNotExist)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "repaired %s (backup: %s): %d malformed lines moved to %s.rejected, %d duplicate lines dropped, %d claims returned, %d lines with a missing copy set to be fetched again\n",
		l.Path(), rep.Backup, rep.Rejected, l.Path(), rep.Duplicates, rep.Released, rep.Reset)
	return nil
}

// unreferenced counts the files of the mirror that no line names (by hash:
// a stray file whose 64-bit hash equals a named one's goes unreported).
// Temporary files of writers are not counted: the next spider start
// removes stale ones.
func unreferenced(mirrorDir string, seed maphash.Seed, referenced map[uint64]struct{}) (int, string, error) {
	n, first := 0, ""
	err := filepath.WalkDir(mirrorDir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == mirrorDir {
			return filepath.SkipDir // no mirror yet
		}
		if err != nil || strings.HasPrefix(d.Name(), ".spider-tmp#") {
			return err
		}
		rel, err := filepath.Rel(mirrorDir, p)
		if err != nil {
			return err
		}
		if ownFile(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if _, ok := referenced[maphash.String(seed, filepath.ToSlash(rel))]; !ok {
			if n++; first == "" {
				first = filepath.ToSlash(rel)
			}
		}
		return nil
	})
	return n, first, err
}

// leads returns the files that lead to the copy of u at file, written with
// it (linkname.Leads), under either layout: they are no strays.
func leads(u, file string) []string {
	return append(linkname.Leads(mirror.Layout{}, u, file), linkname.Leads(mirror.Layout{FoldCase: true}, u, file)...)
}

// ownFile reports whether rel names one of the mirror's own files at its
// root, which no line names: the index pages and the .spider directory
// (internal/mirrorindex). A host directory never takes those names
// (mirror.Path).
func ownFile(rel string) bool {
	switch rel {
	case mirrorindex.IndexPage, mirrorindex.RecentPage, mirrorindex.ArchivePage, mirrorindex.AccountPage, path.Dir(mirrorindex.EventsFile):
		return true
	}
	return false
}

// runningSpiders reports, for each spider that ever ran on the list,
// whether it runs now (its lock is held).
func runningSpiders(ctx context.Context, l listStore) (map[string]bool, error) {
	statuses, err := l.Statuses(ctx)
	if err != nil {
		return nil, err
	}
	running := map[string]bool{}
	for _, s := range statuses {
		running[s.Spider] = s.Running
	}
	return running, nil
}
