package statusrec

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		name string
		do   func(w *Writer)
		want int
	}{
		{"nothing sent", func(*Writer) {}, 0},
		{"a body alone", func(w *Writer) { w.Write([]byte("x")) }, http.StatusOK},
		{"a status, then a body", func(w *Writer) { w.WriteHeader(http.StatusNotFound); w.Write([]byte("x")) }, http.StatusNotFound},
		{"the first of two statuses", func(w *Writer) { w.WriteHeader(http.StatusGone); w.WriteHeader(http.StatusOK) }, http.StatusGone},
		{"a body, then a late status", func(w *Writer) { w.Write([]byte("x")); w.WriteHeader(http.StatusTeapot) }, http.StatusOK},
	} {
		rec := httptest.NewRecorder()
		w := New(rec)
		tt.do(w)
		if got := w.Status(); got != tt.want {
			t.Errorf("%s: Status() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestFlushAndUnwrap(t *testing.T) {
	rec := httptest.NewRecorder()
	w := New(rec)
	w.Write([]byte("x"))
	var _ http.Flusher = w
	w.Flush()
	if !rec.Flushed {
		t.Error("Flush did not reach the underlying writer")
	}
	if w.Unwrap() != http.ResponseWriter(rec) {
		t.Error("Unwrap does not give the underlying writer")
	}
}
