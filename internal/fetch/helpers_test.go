package fetch

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// serve starts a loopback test server and returns its base URL without a
// trailing slash.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
