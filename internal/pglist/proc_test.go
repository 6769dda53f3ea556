package pglist

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// The test binary doubles as a spider process: with PGLIST_TEST_CHILD set
// to a schema it opens the list, locks spider "child", claims a batch,
// prints "claimed N" and waits on its standard input until it is killed.
func TestMain(m *testing.M) {
	if schema := os.Getenv("PGLIST_TEST_CHILD"); schema != "" {
		os.Exit(child(schema))
	}
	if schema := os.Getenv("PGLIST_TEST_GATE"); schema != "" {
		os.Exit(gateChild(schema))
	}
	os.Exit(m.Run())
}

func child(schema string) int {
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("SPIDER_TEST_PG_DSN"), Options{Schema: schema})
	if err == nil {
		_, err = s.LockSpider(ctx, "child")
	}
	c := &list.Cycle{Spider: "child", Now: t0, Lease: time.Hour, Pick: &claim.Picker{P: slow, Now: t0, Want: 3}}
	if err == nil {
		err = s.Run(ctx, c)
	}
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Printf("claimed %d\n", len(c.Claimed))
	bufio.NewReader(os.Stdin).ReadString('\n') // until killed, or the parent goes
	return 0
}

// A spider process killed with SIGKILL holds its claims while it lives
// (and its id: a second process is refused) and loses them at the next
// pass of another once it is dead: its session closed with it.
func TestKilledSpiderLosesClaims(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	s := openTest(t, dsn, schema)
	lock(t, s, "other")
	var adds []list.Add
	for i := range 5 {
		adds = append(adds, list.Add{URL: fmt.Sprintf("http://h/%d", i)})
	}
	mustRun(t, s, &list.Cycle{Spider: "other", Now: t0, Add: adds})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGLIST_TEST_CHILD="+schema)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "claimed 3" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q (%v)", line, err)
	}
	pass := func() *list.Cycle {
		return mustRun(t, s, &list.Cycle{Spider: "other", Now: t0.Add(time.Minute), Lease: time.Hour})
	}
	if c := pass(); c.Stats.TakenBack != 0 || c.Stats.FirstElsewhere != 3 {
		t.Errorf("while the child lives: %+v", c.Stats)
	}
	if _, err := s.LockSpider(ctx, "child"); !errors.Is(err, list.ErrRunning) {
		t.Errorf("lock of the running child's id: %v, want list.ErrRunning", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The server notices the closed socket at once, but ends the backend
	// (and drops its lock) on its own time: wait for that, boundedly.
	for {
		var held bool
		err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks k JOIN spiders s ON k.objid::bigint = s.num
			WHERE k.locktype = 'advisory' AND k.classid::bigint = $1 AND s.spider = 'child')`, s.ns).Scan(&held)
		if err != nil {
			t.Fatal(err)
		}
		if !held {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the killed child's session did not end")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if c := pass(); c.Stats.TakenBack != 3 {
		t.Errorf("after the child was killed: %+v", c.Stats)
	}
	for _, e := range scanAll(t, s) {
		if e.Spider != "" || e.State != list.Found {
			t.Errorf("line left %+v", e)
		}
	}
}
