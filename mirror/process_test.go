package mirror

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestProcessWriters runs several copies of the test binary writing one file
// of a shared mirror while this process reads it: every read is complete.
func TestProcessWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	m, dir := openTemp(t)
	const rel = "h/shared.html"
	if err := m.Write(rel, payload(0, 0)); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for w := 1; w <= 4; w++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MIRROR_HELPER_DIR="+dir, "MIRROR_HELPER_ID="+strconv.Itoa(w))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	done := make(chan error, len(cmds))
	for _, cmd := range cmds {
		go func() { done <- cmd.Wait() }()
	}
	reads := 0
	for running := len(cmds); running > 0; {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("writer process: %v", err)
			}
			running--
		default:
			data, err := m.ReadFile(rel)
			if err != nil || !complete(data) {
				t.Fatalf("read %d bytes, %v: not one complete payload", len(data), err)
			}
			reads++
		}
	}
	noTemps(t, dir)
	t.Logf("%d complete reads", reads)
}

// TestHelperWriter is the writer process of TestProcessWriters.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv("MIRROR_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestProcessWriters")
	}
	w, _ := strconv.Atoi(os.Getenv("MIRROR_HELPER_ID"))
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range 20 {
		if err := m.Write("h/shared.html", payload(w, i)); err != nil {
			t.Fatal(fmt.Errorf("writer %d: %w", w, err))
		}
	}
}
