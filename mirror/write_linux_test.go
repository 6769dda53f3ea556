package mirror

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestKernelAtLeast(t *testing.T) {
	for _, tt := range []struct {
		release string
		want    bool
	}{
		{"5.8.0", true},
		{"5.10.0-28-amd64", true},
		{"6.1.0-13-amd64", true},
		{"6.18.44-fc-v669", true},
		{"5.7.19", false},
		{"4.19.0-26-amd64", false},
		{"5", false},
		{"", false},
		{"x.y", false},
	} {
		if got := kernelAtLeast(tt.release, 5, 8); got != tt.want {
			t.Errorf("kernelAtLeast(%q, 5, 8) = %v, want %v", tt.release, got, tt.want)
		}
	}
}

// A failed syncfs makes the group that saw it, and every group that began
// before it, fsync each file instead: syncfs reports an error only once,
// and it may have been theirs. Their files are written all the same.
func TestFastSyncFailure(t *testing.T) {
	m, dir := openTemp(t)
	if m.fast.f == nil {
		t.Skip("no syncfs here (Linux before 5.8)")
	}
	calls, fail := 0, false
	syncfs = func(int) error {
		calls++
		if fail {
			return syscall.EIO
		}
		return nil
	}
	t.Cleanup(func() { syncfs = realSyncfs })

	since := m.fast.epoch()
	if !m.fast.group(groupSync, since) || calls != 1 {
		t.Fatalf("a group of %d: no syncfs (%d calls)", groupSync, calls)
	}
	if m.fast.group(groupSync-1, since) || calls != 1 {
		t.Errorf("a group of %d: synced whole (%d calls), want an fsync each", groupSync-1, calls)
	}
	fail = true
	if m.fast.group(groupSync, since) {
		t.Error("a failed syncfs reported as done")
	}
	fail = false
	if m.fast.group(groupSync, since) {
		t.Error("a group that began before a failed syncfs trusted its own")
	}
	if !m.fast.group(groupSync, m.fast.epoch()) {
		t.Error("a group that began after the failure does not trust syncfs")
	}

	fail = true
	var files []File
	want := map[string]string{}
	for i := range 2 * groupSync {
		f := File{fmt.Sprintf("h/d%d/%d.html", i%3, i), fmt.Appendf(nil, "page %d", i)}
		files, want[f.Rel] = append(files, f), string(f.Data)
	}
	writeAll(t, m, files)
	wantFiles(t, dir, want)
}

var realSyncfs = syncfs

// A group synced whole writes unnamed files: nothing of a new file is
// visible in its directory before its link, not even a temp name; new
// names are linked, existing ones replaced, and the probe of Open leaves
// nothing behind.
func TestUnnamed(t *testing.T) {
	m, dir := openTemp(t)
	if !m.fast.anon {
		t.Skip("no unnamed files here (O_TMPFILE, syncfs: Linux 5.8+)")
	}
	if err := m.Write("h/old.html", []byte("old")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"h/old.html": "replaced", "h/d/e/deep.html": "deep"}
	files := []File{{"h/d/e/deep.html", []byte("deep")}, {"h/old.html", []byte("replaced")}}
	for i := range groupSync {
		f := File{fmt.Sprintf("h/%d.html", i), fmt.Appendf(nil, "new %d", i)}
		files, want[f.Rel] = append(files, f), string(f.Data)
	}
	m.beforeRename = func(rel string, _ *os.File) error {
		if rel == files[0].Rel {
			if names := list(t, filepath.Join(dir, "h")); names != "d old.html" {
				t.Errorf("before the first link, h holds %q; want only what was there and the new directory", names)
			}
		}
		return nil
	}
	writeAll(t, m, files)
	wantFiles(t, dir, want)
	if names := list(t, filepath.Join(dir, "h")); names != "0.html 1.html 2.html 3.html 4.html 5.html 6.html 7.html d old.html" {
		t.Errorf("after WriteAll, h holds %q", names)
	}
	if names := list(t, dir); names != Own+" h" {
		t.Errorf("the root holds %q; want %s and h alone", names, Own)
	}
}
