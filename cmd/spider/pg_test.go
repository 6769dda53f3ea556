package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/internal/pgtest"
	"github.com/spider-mirror/spider/list"
)

// pgConfig writes a config file in dir naming a list in a schema of the
// test's own on the test server, dropped when the test ends, with extra
// lines appended; it returns the file and the schema.
func pgConfig(t *testing.T, dir, extra string) (conf, schema string) {
	t.Helper()
	dsn := pgtest.DSN(t)
	schema = pgtest.Schema(t, dsn, "spidercli_")
	conf = filepath.Join(dir, "pg.toml")
	body := fmt.Sprintf("list = %q\nschema = %q\n%s", dsn, schema, extra)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf, schema
}

// pgMachine writes beside conf, a config file from pgConfig, the config of
// a spider on another machine: the same list, with the state directory
// state (relative to the spiders' working directory). It returns the file.
func pgMachine(t *testing.T, conf, state string) string {
	t.Helper()
	body, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(conf), state+".toml")
	// First: a key after a table header would belong to the table.
	body = append([]byte(fmt.Sprintf("state = %q\n", state)), body...)
	if err := os.WriteFile(other, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return other
}

// noSharedStateFiles fails the test if one of the state directories holds
// a fetch history or a host pace of its own: a list in PostgreSQL keeps
// them in the database, shared by every machine.
func noSharedStateFiles(t *testing.T, states ...string) {
	t.Helper()
	for _, dir := range states {
		for _, f := range []string{"list.meta", "list.hosts.d"} {
			if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s in the state directory %s: %v (want none: the database holds it)", f, dir, err)
			}
		}
	}
}

// readPG returns the lines of the list in schema.
func readPG(t *testing.T, schema string) []list.Entry {
	t.Helper()
	ctx := context.Background()
	s, err := pglist.Open(ctx, pgtest.DSN(t), pglist.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var es []list.Entry
	if err := s.Scan(ctx, func(e *list.Entry) error { es = append(es, e.Clone()); return nil }); err != nil {
		t.Fatal(err)
	}
	return es
}

// unclaimed returns a whole list's text (export --full) with every claim
// dropped, as a move between stores drops them.
func unclaimed(t *testing.T, full string) string {
	t.Helper()
	var b []byte
	for i, line := range strings.SplitAfter(full, "\n") {
		if i == 0 || line == "" {
			b = append(b, line...)
			continue
		}
		e, err := list.ParseLine(strings.TrimSuffix(line, "\n"))
		if err != nil {
			t.Fatalf("export line %d: %v", i+1, err)
		}
		if e.Spider = ""; e.State == list.Claimed {
			e.State = list.Found
		}
		b = list.AppendLine(b, &e, 0)
	}
	return string(b)
}

// What a spider and status read of a list in PostgreSQL beyond its lines
// comes from the database, whichever machine asks: a start URL that failed
// on one machine is reported as failing by a run on another (the fetch
// history), and status there accounts the host's Crawl-delay and history.
func TestPostgresVerdictAndAccountFromDatabase(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nCrawl-delay: 1\n"))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	pg, _ := pgConfig(t, dir, "")
	a, b := pgMachine(t, pg, "machine-a"), pgMachine(t, pg, "machine-b")
	t.Cleanup(func() { noSharedStateFiles(t, filepath.Join(dir, "machine-a"), filepath.Join(dir, "machine-b")) })
	run := func(conf string) (int, string) {
		return spiderRun(t, dir, 30*time.Second, "--profile", "slow", "--config", conf, "--until-idle", "--delay", "0", "--start", srv.URL+"/", "-q")
	}
	if code, out := run(a); code != 1 || !strings.Contains(out, "could not be fetched") {
		t.Fatalf("first run: exit %d, want 1 (the start URL answers 404):\n%s", code, out)
	}
	// The line waits for its back-off: the second run attempts nothing,
	// and says why from the history the first one wrote.
	if code, out := run(b); code != 1 || !strings.Contains(out, srv.URL+"/: ") || !strings.Contains(out, "next attempt after") || !strings.Contains(out, "hint:") {
		t.Errorf("second run, on another machine: exit %d, want 1 naming the failed start URL:\n%s", code, out)
	}
	code, out, stderr := runCLI(t, dir, "status", "--config", b, "--json")
	var st Status
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.Account == nil || len(st.Account.Hosts) != 1 {
		t.Fatalf("status: exit %d, %v: %s%s", code, err, out, stderr)
	}
	h := st.Account.Hosts[0]
	if h.Budget.CrawlDelaySec != 1 || h.History == nil || h.History.Records < 1 || st.Account.HistoryError != "" {
		t.Errorf("account of %s: budget %+v, history %+v (%s); want robots.txt's Crawl-delay 1s and the run's records",
			h.Host, h.Budget, h.History, st.Account.HistoryError)
	}
}

// The commands that read a list refuse a schema that holds none (a
// mistyped schema) with exit 2, and create neither the schema nor a state
// directory; list check on a list whose mirror is recorded on another
// machine (or in another state directory) says the mirror is missing
// rather than count every copy missing.
func TestPostgresReadersNeedAList(t *testing.T) {
	dir := t.TempDir()
	conf, schema := pgConfig(t, dir, "")
	for _, args := range [][]string{
		{"status"}, {"show", "http://127.0.0.1:1/"}, {"list", "export"}, {"list", "check"}, {"list", "duplicates"},
	} {
		code, _, stderr := runCLI(t, dir, append(args, "--config", conf)...)
		if code != 2 || !strings.Contains(stderr, "spider: error: PostgreSQL schema "+schema+" holds no list") ||
			!strings.Contains(stderr, "spider: hint: check schema in the config file") {
			t.Errorf("%v on a schema with no list: exit %d, want 2 with an error and a hint:\n%s", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "spider-state")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a state directory was made by commands that read: %v", err)
	}
	ctx := context.Background()
	if s, err := pglist.Open(ctx, pgtest.DSN(t), pglist.Options{Schema: schema, Existing: true}); !errors.Is(err, pglist.ErrNoList) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("the schema holds a list after the readers ran: %v", err)
	}

	// A list whose one copy's mirror is recorded in another state directory.
	s, err := pglist.Open(ctx, pgtest.DSN(t), pglist.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	full := list.Header + "\n" + string(list.AppendLine(nil, &list.Entry{File: "h/index.html", Level: 0, State: list.Downloaded,
		Modified: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), URL: "http://h/"}, 0))
	if err := os.WriteFile(filepath.Join(dir, "full"), []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, dir, "list", "import", "--full", "full", "--config", conf); code != 0 {
		t.Fatalf("import --full: exit %d:\n%s", code, stderr)
	}
	code, _, stderr := runCLI(t, dir, "list", "check", "--config", conf)
	if code != 2 || !strings.Contains(stderr, "spider: error: the mirror directory "+filepath.Join(dir, "mirror")+" does not exist, yet PostgreSQL schema "+schema+" names 1 copy in it") ||
		!strings.Contains(stderr, "records it in its state directory on each machine") {
		t.Errorf("check with no mirror here: exit %d, want 2 saying the mirror is missing:\n%s", code, stderr)
	}
}
