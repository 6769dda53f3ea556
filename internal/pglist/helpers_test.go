package pglist

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/pgtest"
)

// testDSN returns the server the tests use (pgtest.DSN).
func testDSN(t testing.TB) string { return pgtest.DSN(t) }

// testSchema returns a schema of the test's own (pgtest.Schema).
func testSchema(t testing.TB, dsn string) string { return pgtest.Schema(t, dsn, "spidertest_") }

// inZone returns dsn asking for the session time zone zone.
func inZone(dsn, zone string) string {
	switch {
	case !strings.Contains(dsn, "://"):
		return dsn + " timezone=" + zone
	case strings.Contains(dsn, "?"):
		return dsn + "&timezone=" + url.QueryEscape(zone)
	}
	return dsn + "?timezone=" + url.QueryEscape(zone)
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
