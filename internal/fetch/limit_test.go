package fetch

import (
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gzipBomb streams size bytes of zeros, gzip-compressed, generated on the fly
// and stopped as soon as the client goes away.
func gzipBomb(t *testing.T, size int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("client did not accept gzip: %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		gz, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
		zeros := make([]byte, 64<<10)
		for sent := int64(0); sent < size; sent += int64(len(zeros)) {
			if r.Context().Err() != nil {
				return
			}
			if _, err := gz.Write(zeros); err != nil {
				return
			}
		}
		gz.Close()
	})
}

func TestGzipBomb(t *testing.T) {
	const maxBody = 1 << 20
	base := serve(t, gzipBomb(t, 1<<30))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	resp, err := New(Options{MaxBody: maxBody}).Get(context.Background(), base+"/bomb", nil)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)

	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Get = %v, %v; want ErrTooLarge", resp, err)
	}
	if Transient(err) || Gone(err) {
		t.Errorf("Transient=%v Gone=%v, want both false", Transient(err), Gone(err))
	}
	// Client and server together: a few MaxBody-sized buffers and the
	// compressor's state, nowhere near the gigabyte the stream decodes to.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MiB reading a bomb capped at 1 MiB", alloc>>20)
	}
	if elapsed > 10*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

func TestGzipSmall(t *testing.T) {
	base := serve(t, gzipBomb(t, 256<<10))
	resp, err := New(Options{MaxBody: 1 << 20}).Get(context.Background(), base+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) != 256<<10 || resp.Body[0] != 0 {
		t.Errorf("body: %d bytes", len(resp.Body))
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("Content-Encoding %q left after decoding", ce)
	}
}

func TestBodySize(t *testing.T) {
	const maxBody = 1000
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil {
			t.Errorf("bad query %q", r.URL.RawQuery)
			return
		}
		if r.URL.Query().Has("length") {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		// Write in pieces and flush, so that without ?length the body is
		// chunked and its size unknown until read.
		chunk := []byte(strings.Repeat("x", 100))
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			n -= k
		}
	}))
	tests := []struct {
		query   string
		wantErr bool
	}{
		{"n=0", false},
		{"n=1000", false},
		{"n=1000&length", false},
		{"n=1001", true},
		{"n=1001&length", true},
		{"n=100000", true},
		{"n=100000&length", true},
	}
	c := New(Options{MaxBody: maxBody})
	for _, tt := range tests {
		resp, err := c.Get(context.Background(), base+"/?"+tt.query, nil)
		if tt.wantErr {
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s: err = %v, want ErrTooLarge", tt.query, err)
			}
			if got := Status(err); got != http.StatusOK {
				t.Errorf("%s: Status = %d, want the answer's 200", tt.query, got)
			}
			if resp != nil {
				t.Errorf("%s: got a truncated response", tt.query)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.query, err)
			continue
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(tt.query, "&")[0], "n="))
		if len(resp.Body) != n {
			t.Errorf("%s: body %d bytes", tt.query, len(resp.Body))
		}
	}
}

func TestTruncatedBody(t *testing.T) {
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("only ten b"))
		// Returning with the body short makes the server close the connection.
	}))
	resp, err := New(Options{}).Get(context.Background(), base+"/", nil)
	if err == nil {
		t.Fatalf("got %d-byte body, want error", len(resp.Body))
	}
	if !Transient(err) || Gone(err) {
		t.Errorf("%v: Transient=%v Gone=%v, want true, false", err, Transient(err), Gone(err))
	}
}
