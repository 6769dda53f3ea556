package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The profiles named by the environment are written by a spider process,
// however it exits, and a profile that cannot be written is a warning.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"SPIDER_CPUPROFILE":   "cpu.pprof",
		"SPIDER_TRACE":        "trace.out",
		"SPIDER_MEMPROFILE":   "mem.pprof",
		"SPIDER_BLOCKPROFILE": "block.pprof",
	}
	for env, name := range files {
		t.Setenv(env, filepath.Join(dir, name))
	}
	if code, out := spiderRun(t, dir, 30*time.Second, "status"); code != 2 {
		t.Fatalf("status without a list: exit %d, want 2:\n%s", code, out)
	}
	for env, name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes, %v", env, len(b), err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "trace.out")); !strings.HasPrefix(string(b), "go 1.") {
		t.Errorf("trace.out starts with %q, not a trace header", b[:min(len(b), 8)])
	}
	t.Setenv("SPIDER_CPUPROFILE", filepath.Join(dir, "missing", "cpu.pprof"))
	if code, out := spiderRun(t, dir, 30*time.Second, "--version"); code != 0 || !strings.Contains(out, "spider: warning: no CPU profile") {
		t.Errorf("unwritable profile: exit %d:\n%s", code, out)
	}
}
