package pglist

import (
	"context"
	"testing"

	"github.com/spider-mirror/spider/internal/pgtest"
)

// testDSN returns the server the tests use (pgtest.DSN).
func testDSN(t testing.TB) string { return pgtest.DSN(t) }

// testSchema returns a schema of the test's own (pgtest.Schema).
func testSchema(t testing.TB, dsn string) string { return pgtest.Schema(t, dsn, "spidertest_") }

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
