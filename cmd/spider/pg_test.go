package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
