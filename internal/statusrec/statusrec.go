// Package statusrec records the status code an HTTP handler sends, for
// the request logs of the project's test sites.
package statusrec

import "net/http"

// Writer is an http.ResponseWriter that remembers the first status sent:
// WriteHeader's code, or 200 at a Write before any.
type Writer struct {
	http.ResponseWriter
	status int
}

// New returns a Writer that writes to w.
func New(w http.ResponseWriter) *Writer { return &Writer{ResponseWriter: w} }

// Status returns the status sent so far; 0 if none.
func (w *Writer) Status() int { return w.status }

func (w *Writer) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *Writer) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written so far, if the underlying writer can.
func (w *Writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
