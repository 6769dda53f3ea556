package list

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The list records the mirror it was first used with in LIST.mirror: one
// line, the mirror's absolute path. Commands that read the list and its
// mirror (show, list check) find the mirror there, wherever they run.

// MirrorRecordPath returns the path of the file that records the mirror
// of the list at path.
func MirrorRecordPath(path string) string { return path + ".mirror" }

// RecordedMirror returns the mirror recorded beside the list at path, ""
// if none is.
func RecordedMirror(path string) (string, error) {
	b, err := os.ReadFile(MirrorRecordPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("list: %w", err)
	}
	dir := strings.TrimSuffix(string(b), "\n")
	if !filepath.IsAbs(dir) || strings.ContainsAny(dir, "\n\x00") {
		return "", fmt.Errorf("list: %s does not hold an absolute path: %q", MirrorRecordPath(path), clip(b))
	}
	return dir, nil
}

// RecordMirror records dir, an absolute path, as the mirror of the list
// at path, replacing the file atomically.
func RecordMirror(path, dir string) error {
	if !filepath.IsAbs(dir) || strings.ContainsAny(dir, "\n\x00") {
		return fmt.Errorf("list: record mirror: %q is not an absolute path", dir)
	}
	return writeAtomic(MirrorRecordPath(path), func(f *os.File) error {
		_, err := f.WriteString(dir + "\n")
		return err
	})
}
