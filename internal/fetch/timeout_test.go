package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// trickle sends headers, then one byte every 100ms until the client leaves.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// stall never sends headers.
func stall(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		opt       Options
		ctx       time.Duration // caller's deadline, 0 for none
		cancel    time.Duration // caller cancels after, 0 for never
		transient bool
	}{
		{"trickle cut by Timeout", trickle, Options{Timeout: 300 * time.Millisecond}, 0, 0, true},
		{"stall cut by HeaderTimeout", stall, Options{HeaderTimeout: 200 * time.Millisecond}, 0, 0, true},
		{"stall cut by Timeout", stall, Options{Timeout: 300 * time.Millisecond}, 0, 0, true},
		{"trickle cut by caller deadline", trickle, Options{}, 300 * time.Millisecond, 0, true},
		{"trickle cancelled by caller", trickle, Options{}, 0, 300 * time.Millisecond, false},
		{"stall cancelled by caller", stall, Options{}, 0, 300 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := serve(t, tt.handler)
			ctx := context.Background()
			if tt.ctx > 0 {
				c, cancel := context.WithTimeout(ctx, tt.ctx)
				defer cancel()
				ctx = c
			}
			if tt.cancel > 0 {
				c, cancel := context.WithCancel(ctx)
				time.AfterFunc(tt.cancel, cancel)
				ctx = c
			}
			start := time.Now()
			resp, err := New(tt.opt).Get(ctx, base+"/", nil)
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if err == nil {
				t.Fatalf("got %d-byte body, want error", len(resp.Body))
			}
			if got := Transient(err); got != tt.transient {
				t.Errorf("Transient(%v) = %v, want %v", err, got, tt.transient)
			}
			if Gone(err) {
				t.Errorf("Gone(%v) = true", err)
			}
			if !tt.transient && !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = New(Options{}).Get(context.Background(), "http://"+addr+"/", nil)
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if !Transient(err) || Gone(err) {
		t.Errorf("%v: Transient=%v Gone=%v, want true, false", err, Transient(err), Gone(err))
	}
}
