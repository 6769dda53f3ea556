package pglist

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// testDSN returns the server the tests use, SPIDER_TEST_PG_DSN. Without
// one the tests skip, except under CI (CI=true), where they fail: CI must
// never pass by skipping them (scripts/test starts a server).
func testDSN(t testing.TB) string {
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

// testSchema returns a schema name of the test's own, dropped with
// everything in it when the test ends, so tests (and test packages) can
// share one server at once.
func testSchema(t testing.TB, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "spidertest_" + hex.EncodeToString(b)
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
	return schema
}

// openTest opens a Store on schema, closed when the test ends.
func openTest(t testing.TB, dsn, schema string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}
