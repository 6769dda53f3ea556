// Package pgtest gives tests that need PostgreSQL their server and a
// schema of their own: the test helpers of the packages that keep a list
// there (internal/pglist, cmd/spider).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DSN returns the server the tests use, SPIDER_TEST_PG_DSN. Without one
// the test skips, except under CI (CI=true), where it fails: CI must never
// pass by skipping them (scripts/test starts a server).
func DSN(t testing.TB) string {
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

// Schema returns a schema name of the test's own, starting with prefix,
// dropped with everything in it when the test ends, so tests (and test
// packages) can share one server at once.
func Schema(t testing.TB, dsn, prefix string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	schema := prefix + hex.EncodeToString(b)
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
