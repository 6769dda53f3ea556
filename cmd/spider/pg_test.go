package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/list"
)

// pgDSN returns the PostgreSQL server the tests use, SPIDER_TEST_PG_DSN.
// Without one the tests skip, except under CI (CI=true), where they fail:
// scripts/test starts a server.
func pgDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("SPIDER_TEST_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("SPIDER_TEST_PG_DSN is not set and CI=true: the PostgreSQL tests must run in CI (scripts/test starts a server)")
		}
		t.Skip("SPIDER_TEST_PG_DSN is not set")
	}
	return dsn
}

// pgConfig writes a config file in dir naming a list in a schema of the
// test's own on the test server, dropped when the test ends, with extra
// lines appended; it returns the file and the schema.
func pgConfig(t *testing.T, dir, extra string) (conf, schema string) {
	t.Helper()
	dsn := pgDSN(t)
	b := make([]byte, 6)
	rand.Read(b)
	schema = "spidercli_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	conf = filepath.Join(dir, "pg.toml")
	body := fmt.Sprintf("list = %q\nschema = %q\n%s", dsn, schema, extra)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf, schema
}

// readPG returns the lines of the list in schema.
func readPG(t *testing.T, schema string) []list.Entry {
	t.Helper()
	ctx := context.Background()
	s, err := pglist.Open(ctx, pgDSN(t), pglist.Options{Schema: schema})
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
