package mirror

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestKillDuringWrite SIGKILLs a process that writes groups of files, right
// after it says it is calling WriteAll, several times over one mirror: no
// name ever holds part of a file, and every file of a group whose WriteAll
// returned holds that group's content or a later one's.
func TestKillDuringWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	_, dir := openTemp(t)
	const files = 2 * groupSync
	written := -1 // the last round whose files were all written without an error
	round := 0
	for kill := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriteAll$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MIRROR_HELPER_DIR="+dir, "MIRROR_HELPER_ROUND="+strconv.Itoa(round))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the helper finish kill+1 rounds, then kill it as it writes
		// the next one.
		sc := bufio.NewScanner(out)
		calls := 0
		for sc.Scan() {
			verb, n, _ := strings.Cut(sc.Text(), " ")
			r, _ := strconv.Atoi(n)
			switch verb {
			case "written":
				written = r
				continue
			case "write":
			default:
				continue // the test binary's own lines
			}
			round = r + 1
			if calls++; calls > kill+1 {
				cmd.Process.Kill()
				break
			}
		}
		cmd.Wait()
		if written < 0 {
			t.Fatal("the helper wrote nothing")
		}
		for k := range files {
			rel := fmt.Sprintf("h/d%d/f%d.html", k%4, k)
			data, err := os.ReadFile(dir + "/" + rel)
			if err != nil {
				t.Fatalf("after kill %d: %s: %v", kill, rel, err)
			}
			var r, kk int
			fmt.Sscanf(string(data[:min(len(data), 32)]), "%d/%d:", &r, &kk)
			if !complete(data) || kk != k || r < written {
				t.Fatalf("after kill %d: %s holds %d bytes of round %d file %d: want a whole file of round %d or later",
					kill, rel, len(data), r, kk, written)
			}
		}
	}
}

// TestHelperWriteAll is the process TestKillDuringWrite kills: from round
// MIRROR_HELPER_ROUND on, it prints "write R", writes the group's files (in
// one WriteAll, or one Write each in even rounds) and prints "written R"
// once every file is durable.
func TestHelperWriteAll(t *testing.T) {
	dir := os.Getenv("MIRROR_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestKillDuringWrite")
	}
	first, _ := strconv.Atoi(os.Getenv("MIRROR_HELPER_ROUND"))
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for r := first; r < first+100; r++ {
		var files []File
		for k := range 2 * groupSync {
			files = append(files, File{fmt.Sprintf("h/d%d/f%d.html", k%4, k), payload(r, k)})
		}
		fmt.Printf("write %d\n", r)
		var errs []error
		if r%2 == 1 {
			errs = m.WriteAll(files)
		} else {
			for _, f := range files {
				errs = append(errs, m.Write(f.Rel, f.Data))
			}
		}
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		fmt.Printf("written %d\n", r)
	}
}
