package mirror

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t testing.TB) (*Mirror, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mirror")
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, dir
}

// noTemps fails the test if there is a temp file under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			found = append(found, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("temp files left: %q", found)
	}
}

// contents returns the whole content of the open file f.
func contents(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustRead(t *testing.T, m *Mirror, rel, want string) {
	t.Helper()
	got, err := m.ReadFile(rel)
	if err != nil || string(got) != want {
		t.Fatalf("ReadFile(%q) = %q, %v; want %q", rel, got, err, want)
	}
}

func TestWriteReplace(t *testing.T) {
	m, dir := openTemp(t)
	rel := "example.com/a/b/page.html"
	for _, data := range []string{"old", "new content", ""} {
		if err := m.Write(rel, []byte(data)); err != nil {
			t.Fatal(err)
		}
		mustRead(t, m, rel, data)
	}
	if fi, err := m.Stat(rel); err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() {
		t.Errorf("Stat = %v, %v", fi, err)
	}
	noTemps(t, dir)
	if m.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", m.Dir(), dir)
	}
}

func TestWriteFailBeforeRename(t *testing.T) {
	m, dir := openTemp(t)
	boom := errors.New("boom")
	if err := m.Write("h/page.html", []byte("old")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ rel, want string }{
		{"h/page.html", "old"},      // replacing: the old file stays
		{"h/new/dir/page.html", ""}, // creating: no file appears
	} {
		sawTemp := false
		m.beforeRename = func(_ string, f *os.File) error {
			sawTemp = contents(t, f) == "new"
			return boom
		}
		err := m.Write(tt.rel, []byte("new"))
		m.beforeRename = nil
		if !errors.Is(err, boom) || !sawTemp {
			t.Fatalf("Write(%q) = %v (full temp seen: %v), want boom", tt.rel, err, sawTemp)
		}
		if tt.want != "" {
			mustRead(t, m, tt.rel, tt.want)
		} else if _, err := m.Stat(tt.rel); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%q) after a failed first write: %v, want not exist", tt.rel, err)
		}
		noTemps(t, dir)
	}
}

func TestOpenRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * staleAge)
	// A process that has exited: its temp files are stale at once.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := dead.Process.Pid
	if processAlive(deadPID) {
		t.Fatalf("process %d exited but counts as alive", deadPID)
	}
	files := map[string]bool{ // name → removed by Open
		"h/" + tempPrefix + strconv.Itoa(deadPID) + "-fresh":     true,  // killed mid-commit
		"h/" + tempPrefix + strconv.Itoa(os.Getpid()) + "-fresh": false, // alive: may not have locked yet
		"h/" + tempPrefix + "0123456789abcdef":                   true,
		"h/a/b/" + tempPrefix + "fedcba9876543210":               true,
		tempPrefix + "top":                         true,
		"h/" + tempPrefix + "fresh":                false, // may be a writer that has not locked yet
		"h/" + tempPrefix + "locked":               !holdTempOpen,
		"h/page.html":                              false,
		"h/.spider-tmp-not-ours":                   false,
		"h/" + strings.TrimSuffix(tempPrefix, "#"): false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "fresh") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A live writer in another process holds the flock on its temp file.
	lf, err := os.Open(filepath.Join(dir, "h", tempPrefix+"locked"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := lockFile(lf); err != nil {
		t.Fatal(err)
	}
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != removed {
			t.Errorf("%s: removed = %v, want %v (%v)", name, gone, removed, err)
		}
	}
}

func TestUnsafeNames(t *testing.T) {
	m, dir := openTemp(t)
	for _, rel := range []string{
		"", ".", "..", "../x", "a/../../x", "a/..", "/etc/passwd", "a//b", "a/./b", "a/", "./a",
		`a\..\..\x`, `C:\x`, "a\x00b", tempPrefix + "1", "h/" + tempPrefix + "x",
	} {
		if err := m.Write(rel, []byte("x")); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Write(%q) = %v, want ErrUnsafePath", rel, err)
		}
		if _, err := m.ReadFile(rel); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("ReadFile(%q) = %v, want ErrUnsafePath", rel, err)
		}
		if _, err := m.Stat(rel); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Stat(%q) = %v, want ErrUnsafePath", rel, err)
		}
		if err := m.Remove(rel); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Remove(%q) = %v, want ErrUnsafePath", rel, err)
		}
	}
	// A symlink planted in the mirror cannot lead a write outside: os.Root.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "evil")); err != nil {
		t.Skip(err)
	}
	if err := m.Write("evil/x.html", []byte("x")); err == nil {
		t.Error("Write through a symlink leaving the root succeeded")
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("wrote outside the root: %v", ents)
	}
}

// TestWritePaths writes the file of every Path table row: the names Path
// makes are accepted by Write and by the file system.
func TestWritePaths(t *testing.T) {
	m, _ := openTemp(t)
	for _, tt := range pathTests {
		p, err := Path(canon(t, tt.url), tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Write(p, []byte(tt.url)); err != nil {
			t.Errorf("Write(%q): %v", p, err)
		}
	}
}

func TestFileDirConflict(t *testing.T) {
	m, dir := openTemp(t)
	if err := m.Write("h/img", []byte("png")); err != nil {
		t.Fatal(err)
	}
	if err := m.Write("h/img/a.png", []byte("x")); err == nil {
		t.Error("Write under a file succeeded")
	}
	if err := m.Write("h", []byte("x")); err == nil {
		t.Error("Write over a directory succeeded")
	}
	mustRead(t, m, "h/img", "png")
	noTemps(t, dir)
}

func TestRemove(t *testing.T) {
	m, _ := openTemp(t)
	if err := m.Write("h/a/gone.html", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove("h/a/gone.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stat("h/a/gone.html"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat after Remove: %v", err)
	}
	if err := m.Remove("h/a/gone.html"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second Remove: %v, want ErrNotExist", err)
	}
	if fi, err := m.Stat("h/a"); err != nil || !fi.IsDir() {
		t.Errorf("parent directory: %v, %v", fi, err)
	}
}

// payload is the content writer w writes in round i: one repeated byte and a
// header, so a torn or mixed file is seen at once.
func payload(w, i int) []byte {
	head := fmt.Sprintf("%d/%d:", w, i)
	return append([]byte(head), bytes.Repeat([]byte{byte('a' + w%26)}, 256<<10)...)
}

// complete reports whether data is exactly one payload.
func complete(data []byte) bool {
	var w, i int
	if _, err := fmt.Sscanf(string(data[:min(len(data), 32)]), "%d/%d:", &w, &i); err != nil {
		return false
	}
	return bytes.Equal(data, payload(w, i))
}

func TestConcurrentWriters(t *testing.T) {
	m, dir := openTemp(t)
	const rel = "h/same.html"
	if err := m.Write(rel, payload(0, 0)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if data, err := m.ReadFile(rel); err != nil || !complete(data) {
				t.Errorf("reader saw %d bytes, %v: not one complete payload", len(data), err)
				return
			}
		}
	}()
	for w := range 8 {
		wg.Go(func() {
			for i := range 10 {
				if err := m.Write(rel, payload(w, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-readerDone
	data, err := m.ReadFile(rel)
	if err != nil || !complete(data) {
		t.Errorf("final file: %d bytes, %v", len(data), err)
	}
	noTemps(t, dir)
}
