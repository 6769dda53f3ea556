package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hopHandler serves /hop/N as a redirect to /hop/N+1 until N == last, which
// answers 200. /loop/a and /loop/b redirect to each other; /self to itself.
func hopHandler(t *testing.T, last int, requests *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch p := r.URL.Path; {
		case p == "/loop/a":
			http.Redirect(w, r, "/loop/b", http.StatusFound)
		case p == "/loop/b":
			http.Redirect(w, r, "/loop/a", http.StatusMovedPermanently)
		case p == "/self":
			http.Redirect(w, r, "/self", http.StatusFound)
		case p == "/to-ftp":
			http.Redirect(w, r, "ftp://example.com/", http.StatusFound)
		case p == "/to-creds":
			w.Header().Set("Location", "ftp://user:secret@example.com/x")
			w.WriteHeader(http.StatusFound)
		case strings.HasPrefix(p, "/hop/"):
			n, err := strconv.Atoi(strings.TrimPrefix(p, "/hop/"))
			if err != nil {
				t.Errorf("bad path %q", p)
				return
			}
			if n >= last {
				fmt.Fprintf(w, "final %d", n)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusSeeOther)
		default:
			http.NotFound(w, r)
		}
	})
}

func TestRedirectChain(t *testing.T) {
	var n atomic.Int64
	base := serve(t, hopHandler(t, 3, &n))
	resp, err := New(Options{}).Get(context.Background(), base+"/hop/0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := base + "/hop/3"; resp.URL != want {
		t.Errorf("URL = %q, want %q", resp.URL, want)
	}
	want := []string{base + "/hop/0", base + "/hop/1", base + "/hop/2"}
	if fmt.Sprint(resp.Redirects) != fmt.Sprint(want) {
		t.Errorf("Redirects = %q, want %q", resp.Redirects, want)
	}
	if string(resp.Body) != "final 3" {
		t.Errorf("Body = %q", resp.Body)
	}
}

func TestRedirectLimit(t *testing.T) {
	tests := []struct {
		name, path string
		max        int
		ok         bool
		maxReqs    int64
	}{
		{"exactly max", "/hop/20", 10, true, 11},
		{"one over max", "/hop/19", 10, false, 11},
		{"30 hops", "/hop/0", 10, false, 11},
		{"default max", "/hop/0", 0, false, 11},
		{"loop a-b", "/loop/a", 10, false, 3},
		{"loop a-b, generous max", "/loop/a", 1000, false, 3},
		{"self loop", "/self", 10, false, 2},
		{"to ftp", "/to-ftp", 10, false, 1},
		{"to ftp with creds", "/to-creds", 10, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int64
			base := serve(t, hopHandler(t, 30, &n))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := New(Options{MaxRedirects: tt.max}).Get(ctx, base+tt.path, nil)
			if tt.ok {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if len(resp.Redirects) != tt.max {
					t.Errorf("%d redirects recorded, want %d", len(resp.Redirects), tt.max)
				}
			} else {
				if !errors.Is(err, ErrRedirects) {
					t.Fatalf("err = %v, want ErrRedirects", err)
				}
				if Transient(err) || Gone(err) {
					t.Errorf("Transient=%v Gone=%v, want both false", Transient(err), Gone(err))
				}
				if !strings.HasPrefix(err.Error(), "fetch: GET "+base+tt.path+": ") {
					t.Errorf("error text %q", err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error text leaks a password: %q", err)
				}
			}
			if got := n.Load(); got > tt.maxReqs {
				t.Errorf("server saw %d requests, want at most %d", got, tt.maxReqs)
			}
		})
	}
}

// GetPaced calls its PaceFunc before each hop followed, with the hop's
// URL, before the hop's request is made; its error ends the fetch and
// stays in the error chain.
func TestGetPacedHops(t *testing.T) {
	var n atomic.Int64
	base := serve(t, hopHandler(t, 3, &n))
	var paced []string
	var madeBefore []int64
	pace := func(ctx context.Context, next string) error {
		paced = append(paced, next)
		madeBefore = append(madeBefore, n.Load())
		return nil
	}
	resp, err := New(Options{}).GetPaced(context.Background(), base+"/hop/0", nil, pace)
	if err != nil || resp.URL != base+"/hop/3" {
		t.Fatalf("GetPaced: %v, %+v", err, resp)
	}
	if want := []string{base + "/hop/1", base + "/hop/2", base + "/hop/3"}; fmt.Sprint(paced) != fmt.Sprint(want) {
		t.Errorf("paced %v, want %v", paced, want)
	}
	if fmt.Sprint(madeBefore) != "[1 2 3]" {
		t.Errorf("requests made when each hop was paced: %v, want [1 2 3]", madeBefore)
	}
	stop := errors.New("stopped")
	_, err = New(Options{}).GetPaced(context.Background(), base+"/hop/0", nil, func(context.Context, string) error { return stop })
	if !errors.Is(err, stop) || n.Load() != 5 {
		t.Errorf("a pace error: %v after %d requests, want it in the chain after 5", err, n.Load())
	}
	// A loop is refused before pacing: no wait for a hop never made.
	paced = nil
	if _, err := New(Options{}).GetPaced(context.Background(), base+"/loop/a", nil, pace); !errors.Is(err, ErrRedirects) || len(paced) != 1 {
		t.Errorf("loop: %v, paced %v; want ErrRedirects after pacing only /loop/b", err, paced)
	}
}
