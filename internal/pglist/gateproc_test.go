package pglist

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/hostgate"
)

// gateChild is a spider process of TestTwoMachinesShareHostPace: it
// opens the list in schema (nothing else is shared with its parent or
// its sibling), says "ready", and on a line on its standard input makes
// GATE_REQUESTS requests to GATE_URL, each through the Gate at
// GATE_DELAY, naming itself in X-Child. With GATE_REQUESTS 0 it takes a
// lease, says "leased" and holds it until it is killed.
func gateChild(schema string) int {
	ctx := context.Background()
	fail := func(err error) int { fmt.Println("error:", err); return 1 }
	s, err := Open(ctx, os.Getenv("SPIDER_TEST_PG_DSN"), Options{Schema: schema})
	if err != nil {
		return fail(err)
	}
	g, err := s.OpenGate(ctx, hostgate.Options{Conns: 4, LeaseTTL: time.Hour})
	if err != nil {
		return fail(err)
	}
	u, _ := url.Parse(os.Getenv("GATE_URL"))
	delay, _ := time.ParseDuration(os.Getenv("GATE_DELAY"))
	n, _ := strconv.Atoi(os.Getenv("GATE_REQUESTS"))
	in := bufio.NewReader(os.Stdin)
	if n == 0 {
		if _, err := g.Acquire(ctx, u.Host, delay, nil); err != nil {
			return fail(err)
		}
		fmt.Println("leased")
		in.ReadString('\n') // until killed
		return 0
	}
	fmt.Println("ready")
	in.ReadString('\n')
	for range n {
		l, err := g.Acquire(ctx, u.Host, delay, nil)
		if err != nil {
			return fail(err)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		req.Header.Set("X-Child", os.Getenv("GATE_NAME"))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err := g.Release(l, hostgate.Outcome{OK: err == nil}); err != nil {
			return fail(err)
		}
	}
	fmt.Println("done")
	return 0
}

// proc is a gateChild process.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startGateChild(t *testing.T, ctx context.Context, schema, name, target string, delay time.Duration, n int) *proc {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGLIST_TEST_GATE="+schema, "GATE_URL="+target, "GATE_NAME="+name,
		"GATE_DELAY="+delay.String(), "GATE_REQUESTS="+strconv.Itoa(n))
	cmd.Dir = t.TempDir() // no working directory in common
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	return &proc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(out)}
}

// expect reads the child's next line and fails unless it is want.
func (p *proc) expect(t *testing.T, want string) {
	t.Helper()
	if !p.out.Scan() || p.out.Text() != want {
		t.Fatalf("child said %q (%v), want %q", p.out.Text(), p.out.Err(), want)
	}
}

type arrival struct {
	at    time.Time
	child string
}

// Two processes that share nothing but the database (no file, no working
// directory) make requests to one host through the PostgreSQL gate with a
// delay: the server's own log shows every request arriving at least the
// delay after the one before, whichever process sent them, and both
// processes fetching. A third process took a lease and was killed with
// SIGKILL before they began: its lease, which would not expire for an
// hour, does not hold them up.
func TestTwoMachinesShareHostPace(t *testing.T) {
	dsn := testDSN(t)
	schema := testSchema(t, dsn)
	openTest(t, dsn, schema) // creates the schema once, before the children race to
	const delay, each = 100 * time.Millisecond, 8
	const tolerance = time.Millisecond // the clock's granularity
	var mu sync.Mutex
	var log []arrival
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, arrival{time.Now(), r.Header.Get("X-Child")})
		mu.Unlock()
		io.WriteString(w, "page")
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dead := startGateChild(t, ctx, schema, "dead", srv.URL+"/", delay, 0)
	dead.expect(t, "leased")
	if err := dead.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	dead.cmd.Wait()

	a := startGateChild(t, ctx, schema, "a", srv.URL+"/", delay, each)
	b := startGateChild(t, ctx, schema, "b", srv.URL+"/", delay, each)
	a.expect(t, "ready")
	b.expect(t, "ready")
	io.WriteString(a.stdin, "go\n")
	io.WriteString(b.stdin, "go\n")
	a.expect(t, "done")
	b.expect(t, "done")

	mu.Lock()
	defer mu.Unlock()
	slices.SortFunc(log, func(x, y arrival) int { return x.at.Compare(y.at) })
	by := map[string]int{}
	for _, r := range log {
		by[r.child]++
	}
	if len(log) != 2*each || by["a"] != each || by["b"] != each {
		t.Fatalf("requests by process %v, want %d each", by, each)
	}
	var order strings.Builder
	minGap := time.Hour
	for i, r := range log {
		order.WriteString(r.child)
		if i == 0 {
			continue
		}
		gap := r.at.Sub(log[i-1].at)
		minGap = min(minGap, gap)
		if gap < delay-tolerance {
			t.Errorf("requests %d (%s) and %d (%s) arrived %v apart, want ≥ %v", i-1, log[i-1].child, i, r.child, gap, delay)
		}
	}
	t.Logf("%d requests in the order %s over %v, smallest gap %v (delay %v)",
		len(log), order.String(), log[len(log)-1].at.Sub(log[0].at).Round(time.Millisecond), minGap, delay)
}
