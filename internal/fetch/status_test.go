package fetch

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			t.Errorf("bad path %q", r.URL.Path)
			return
		}
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(code)
		w.Write([]byte("body of an error page"))
	}))
	tests := []struct {
		code                      int
		gone, transient, notModif bool
	}{
		{404, true, false, false},
		{410, true, false, false},
		{500, false, true, false},
		{502, false, true, false},
		{503, false, true, false},
		{429, false, true, false},
		{408, false, true, false},
		{400, false, false, false},
		{401, false, false, false},
		{403, false, false, false},
		{451, false, false, false},
		{304, false, false, true},
	}
	c := New(Options{})
	for _, tt := range tests {
		u := base + "/" + strconv.Itoa(tt.code)
		resp, err := c.Get(context.Background(), u, nil)
		if err == nil {
			t.Errorf("%d: got response %+v, want error", tt.code, resp)
			continue
		}
		var he *HTTPError
		if !errors.As(err, &he) {
			t.Errorf("%d: err %T %v, want *HTTPError", tt.code, err, err)
			continue
		}
		if he.StatusCode != tt.code || he.URL != u || he.Header.Get("Retry-After") != "7" {
			t.Errorf("%d: HTTPError = %+v", tt.code, he)
		}
		want := "fetch: GET " + u + ": " + strconv.Itoa(tt.code) + " " + http.StatusText(tt.code)
		if err.Error() != want {
			t.Errorf("%d: Error() = %q, want %q", tt.code, err, want)
		}
		if got := Gone(err); got != tt.gone {
			t.Errorf("%d: Gone = %v", tt.code, got)
		}
		if got := errors.Is(err, fs.ErrNotExist); got != tt.gone {
			t.Errorf("%d: errors.Is(fs.ErrNotExist) = %v", tt.code, got)
		}
		if got := Transient(err); got != tt.transient {
			t.Errorf("%d: Transient = %v", tt.code, got)
		}
		if got := NotModified(err); got != tt.notModif {
			t.Errorf("%d: NotModified = %v", tt.code, got)
		}
	}
}

func TestStatus2xx(t *testing.T) {
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNonAuthoritativeInfo)
		w.Write([]byte("ok"))
	}))
	resp, err := New(Options{}).Get(context.Background(), base+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 203 || string(resp.Body) != "ok" {
		t.Errorf("got %d %q", resp.Status, resp.Body)
	}
}
