package list

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Create writes a new list file at path holding the lines next yields
// (false when done), in order, and returns how many. A line's fields are
// kept as they are (level, state, file, times) but its claim, which
// belongs to a spider of the list it came from: it is dropped as a
// takeback drops it. Each line's file field reserves reserve(url) bytes,
// as appended lines do (Options.Reserve; nil reserves none). The file is
// written whole under a temporary name and linked into place: path never
// holds part of the lines, and an existing file at path is left alone
// (an error satisfying errors.Is(err, fs.ErrExist)). It checks neither the
// lines' URLs nor that each is given once: Scan and Repair read what it
// wrote as any list.
func Create(path string, reserve func(url string) int, next func() (Entry, bool, error)) (int, error) {
	if reserve == nil {
		reserve = func(string) int { return 0 }
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("list: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.WriteString(Header + "\n")
	n := 0
	var buf []byte
	for {
		e, ok, err := next()
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		release(&e)
		buf = AppendLine(buf[:0], &e, max(len(e.File), reserve(e.URL)))
		if _, err := w.Write(buf); err != nil {
			return 0, fmt.Errorf("list: write %s: %w", tmp.Name(), err)
		}
		n++
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("list: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return 0, fmt.Errorf("list: fsync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("list: close %s: %w", tmp.Name(), err)
	}
	// A link, unlike a rename, never replaces a file that appeared meanwhile.
	if err := os.Link(tmp.Name(), path); err != nil {
		return 0, fmt.Errorf("list: %w", err)
	}
	return n, syncDir(dir)
}
