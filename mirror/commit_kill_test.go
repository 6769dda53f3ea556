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

// TestKillDuringCommit SIGKILLs a process that stages and commits groups of
// files, right after it says it is calling Commit, several times over one
// mirror: no name ever holds part of a file, and every file of a group
// whose Commit returned holds that group's content or a later one's.
func TestKillDuringCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	_, dir := openTemp(t)
	const files = 2 * groupSync
	committed := -1 // the last round whose Commit returned nil for every file
	round := 0
	for kill := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCommitter$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MIRROR_HELPER_DIR="+dir, "MIRROR_HELPER_ROUND="+strconv.Itoa(round))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the helper finish kill+1 rounds, then kill it as it commits
		// the next one.
		sc := bufio.NewScanner(out)
		calls := 0
		for sc.Scan() {
			verb, n, _ := strings.Cut(sc.Text(), " ")
			r, _ := strconv.Atoi(n)
			switch verb {
			case "committed":
				committed = r
				continue
			case "commit":
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
		if committed < 0 {
			t.Fatal("the helper committed nothing")
		}
		for k := range files {
			rel := fmt.Sprintf("h/d%d/f%d.html", k%4, k)
			data, err := os.ReadFile(dir + "/" + rel)
			if err != nil {
				t.Fatalf("after kill %d: %s: %v", kill, rel, err)
			}
			var r, kk int
			fmt.Sscanf(string(data[:min(len(data), 32)]), "%d/%d:", &r, &kk)
			if !complete(data) || kk != k || r < committed {
				t.Fatalf("after kill %d: %s holds %d bytes of round %d file %d: want a whole file of round %d or later",
					kill, rel, len(data), r, kk, committed)
			}
		}
	}
}

// TestHelperCommitter is the process TestKillDuringCommit kills: from round
// MIRROR_HELPER_ROUND on, it stages the group's files (with Stage, or in a
// Group in odd rounds), prints "commit R", commits, and prints "committed
// R" once every file is durable.
func TestHelperCommitter(t *testing.T) {
	dir := os.Getenv("MIRROR_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestKillDuringCommit")
	}
	first, _ := strconv.Atoi(os.Getenv("MIRROR_HELPER_ROUND"))
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for r := first; r < first+100; r++ {
		// Odd rounds stage through a Group, even ones file by file.
		var group []*Staged
		g := m.Group()
		for k := range 2 * groupSync {
			stage := m.Stage
			if r%2 == 1 {
				stage = g.Stage
			}
			s, err := stage(fmt.Sprintf("h/d%d/f%d.html", k%4, k), payload(r, k))
			if err != nil {
				t.Fatal(err)
			}
			group = append(group, s)
		}
		fmt.Printf("commit %d\n", r)
		errs := g.Commit()
		if r%2 == 0 {
			errs = m.Commit(group)
		}
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		fmt.Printf("committed %d\n", r)
	}
}
