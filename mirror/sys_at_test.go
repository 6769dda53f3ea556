//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package mirror

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAtOneName: createAt and renameAt take one name in their directory,
// never a path that could leave it.
func TestAtOneName(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := openDir(r)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	for _, name := range []string{"", ".", "..", "../out", "a/b", "x\x00y"} {
		if f, err := createAt(d, name); err == nil {
			f.Close()
			t.Errorf("createAt(%q) succeeded", name)
		}
	}
	f, err := createAt(d, "a")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := createAt(d, "a"); !os.IsExist(err) {
		t.Errorf("createAt of an existing name: %v, want it to exist", err)
	}
	for _, to := range []string{"", ".", "..", "../out", "b/c"} {
		if err := renameAt(d, "a", to); err == nil {
			t.Errorf("renameAt(a, %q) succeeded", to)
		}
	}
	if err := renameAt(d, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sub, "b")); err != nil {
		t.Errorf("renamed file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("a file left the directory: %v", err)
	}
}
