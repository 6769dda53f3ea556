package mirror

import (
	"fmt"
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
