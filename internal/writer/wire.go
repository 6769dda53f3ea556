package writer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// The helper's protocol, on its files fdGroups and fdAnswers: after
// starting, the helper greets with protocol and one byte, 1 if it can
// serve (idle priority, unnamed files) and 0 if not. Then each group is a
// count and that many files, each a name (relative to the mirror root) and
// its bytes, every number an unsigned varint and every string preceded by
// its length; the answer is a count, equal to the group's, and per file a
// code (codeDone, codeYours, codeError) and a message.

// Limits on what either side reads, far above what a crawler sends (names
// of a few hundred bytes, pages capped by fetch's body limit), so that a
// corrupted stream is an error; a length is believed only as its bytes
// arrive (readBytes).
const (
	maxGroup   = 1 << 20
	maxName    = 1 << 16
	maxData    = 1 << 31
	maxMessage = 4096 // of an error; longer ones are cut
)

var errWire = errors.New("writer: malformed stream")

// protocol names this version of the protocol: in EnvHelper, and first in
// the greeting.
const protocol = "spider-writer-1"

// greeting returns the helper's greeting.
func greeting(idle bool) []byte {
	b := append([]byte(protocol), 0)
	if idle {
		b[len(b)-1] = 1
	}
	return b
}

// appendGroup appends the encoding of files to b.
func appendGroup(b []byte, files []File) []byte {
	b = binary.AppendUvarint(b, uint64(len(files)))
	for _, f := range files {
		b = binary.AppendUvarint(b, uint64(len(f.Rel)))
		b = append(b, f.Rel...)
		b = binary.AppendUvarint(b, uint64(len(f.Data)))
		b = append(b, f.Data...)
	}
	return b
}

// readGroup reads one group. io.EOF means the stream ended cleanly
// between groups.
func readGroup(r *bufio.Reader) ([]File, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err // io.EOF before a group: the end
	}
	if n > maxGroup {
		return nil, fmt.Errorf("%w: group of %d files", errWire, n)
	}
	files := make([]File, 0, min(n, 1024)) // n is believed as files arrive
	for range n {
		rel, err := readBytes(r, maxName)
		if err != nil {
			return nil, err
		}
		data, err := readBytes(r, maxData)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Rel: string(rel), Data: data})
	}
	return files, nil
}

// The answer for each file of a group: done, the caller's to write (a
// name that exists: the helper writes new files only, see serve), or an
// error.
const (
	codeDone  = 0
	codeYours = 1
	codeError = 2
)

// errYours marks, on the caller's side, a file the helper left to it.
var errYours = errors.New("writer: the caller's to write")

// appendReply appends the answer for a group whose files had errs.
func appendReply(b []byte, errs []error) []byte {
	b = binary.AppendUvarint(b, uint64(len(errs)))
	for _, err := range errs {
		code, msg := byte(codeDone), ""
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrExist) || errors.Is(err, errors.ErrUnsupported):
			code, msg = codeYours, err.Error()
		default:
			code, msg = codeError, err.Error()
		}
		if len(msg) > maxMessage {
			msg = msg[:maxMessage]
		}
		b = append(b, code)
		b = binary.AppendUvarint(b, uint64(len(msg)))
		b = append(b, msg...)
	}
	return b
}

// readReply reads the answer for a group of want files: per file nil,
// an error that satisfies errors.Is(err, errYours), or the helper's error.
func readReply(r *bufio.Reader, want int) ([]error, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, unexpected(err)
	}
	if n != uint64(want) {
		return nil, fmt.Errorf("%w: %d answers for %d files", errWire, n, want)
	}
	errs := make([]error, want)
	for i := range errs {
		code, err := r.ReadByte()
		if err != nil {
			return nil, unexpected(err)
		}
		msg, err := readBytes(r, maxMessage)
		if err != nil {
			return nil, err
		}
		switch code {
		case codeDone:
		case codeYours:
			errs[i] = fmt.Errorf("%w: %s", errYours, msg)
		case codeError:
			errs[i] = errors.New(string(msg))
		default:
			return nil, fmt.Errorf("%w: answer code %d", errWire, code)
		}
	}
	return errs, nil
}

// readBytes reads a length and that many bytes, at most max.
func readBytes(r *bufio.Reader, max uint64) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, unexpected(err)
	}
	if n > max {
		return nil, fmt.Errorf("%w: length %d over %d", errWire, n, max)
	}
	if n <= 64<<10 {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, unexpected(err)
		}
		return b, nil
	}
	var b bytes.Buffer
	if _, err := io.CopyN(&b, r, int64(n)); err != nil {
		return nil, unexpected(err)
	}
	return b.Bytes(), nil
}

// unexpected turns an io.EOF within a message into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
