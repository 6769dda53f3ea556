package hostile

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/spider-mirror/spider/internal/statusrec"
)

// The writers behind the cases that misbehave in how they send a body:
// slowly, or as a gzip stream far larger decoded than sent.

// bodyCase serves the bodies too large, too slow or never finished, if p
// is one of them.
func (s *Site) bodyCase(w *statusrec.Writer, r *http.Request, p string) bool {
	switch {
	case p == "/gzip-bomb":
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(s.gzipBomb())
	case p == "/big" || p == "/big-declared":
		w.Header().Set("Content-Type", "text/html")
		if p == "/big-declared" {
			w.Header().Set("Content-Length", strconv.FormatInt(s.opt.BigSize, 10))
		}
		chunk := bytes.Repeat([]byte("<p>big</p>\n"), 6000)
		for left := s.opt.BigSize; left > 0; {
			k := min(left, int64(len(chunk)))
			if _, err := w.Write(chunk[:k]); err != nil {
				return true // the client gave up
			}
			left -= k
		}
	case p == "/trickle":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		trickle(w, r, func() error { _, err := w.Write([]byte("x")); return err })
	case p == "/slow-headers":
		hj, ok := w.ResponseWriter.(http.Hijacker)
		if !ok {
			http.Error(w, "no hijacking", http.StatusInternalServerError)
			return true
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return true
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nX-Slow: ")
		buf.Flush()
		trickle(nil, r, func() error {
			conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, err := conn.Write([]byte("x"))
			return err
		})
	default:
		return false
	}
	return true
}

// trickle calls write every 100 ms until it fails, the client goes away,
// or ten minutes pass (a bound for a test that forgot its timeout).
func trickle(w http.ResponseWriter, r *http.Request, write func() error) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	end := time.After(10 * time.Minute)
	for {
		if write() != nil {
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-end:
			return
		case <-t.C:
		}
	}
}

// gzipBomb returns a gzip stream that decodes to BombSize bytes: an HTML
// page followed by spaces. It is a series of gzip members (RFC 1952 allows
// several; Go's reader decodes them all), one compressed mebibyte of
// spaces repeated, so making it is cheap.
func (s *Site) gzipBomb() []byte {
	s.bombOnce.Do(func() {
		head := []byte("<!doctype html><title>bomb</title><p>")
		out := gzipMember(head)
		const mib = 1 << 20
		spaces := spacesMember()
		left := s.opt.BombSize - int64(len(head))
		for ; left >= mib; left -= mib {
			out = append(out, spaces...)
		}
		if left > 0 {
			out = append(out, gzipMember(bytes.Repeat([]byte{' '}, int(left)))...)
		}
		s.bomb = out
	})
	return s.bomb
}

func gzipMember(p []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(p)
	zw.Close()
	return b.Bytes()
}

// spacesMember is one gzip member of a mebibyte of spaces, made once.
var spacesMember = sync.OnceValue(func() []byte { return gzipMember(bytes.Repeat([]byte{' '}, 1<<20)) })
