package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// Moving a whole list between stores: spider list export --full writes
// every line (the list file format, header first), spider list import
// --full loads such lines into an empty list, file or PostgreSQL, keeping
// every field but the claims.

// openInput opens what an import reads: the file from, or stdin for "-".
// done closes it.
func openInput(from string, stdin io.Reader, hint string) (in io.Reader, done func(), err error) {
	if from == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(from)
	if err != nil {
		return nil, nil, hintErr{fmt.Errorf("import: %w", err), hint}
	}
	return f, func() { f.Close() }, nil
}

// importList loads the whole list in from (export --full's output) into
// the list ref names, which must hold no line: a file that does not exist
// yet, or a PostgreSQL list with no line. All of it is loaded or none.
func importList(ctx context.Context, ref listRef, from string, stdin io.Reader, stderr io.Writer) error {
	in, done, err := openInput(from, stdin, "give a file that spider list export --full wrote, or - for standard input")
	if err != nil {
		return err
	}
	defer done()
	next := fullLines(in, from)
	var n int
	if ref.pg() {
		l, err := ref.open(ctx, list.Options{})
		if err != nil {
			return err
		}
		defer l.Close()
		n, err = l.(*pglist.Store).Import(ctx, next)
		if errors.Is(err, pglist.ErrNotEmpty) {
			return hintErr{fmt.Errorf("import into %s: the list holds lines already; nothing was imported", ref),
				"import a whole list into an empty one (another schema: set schema in the config file)"}
		}
		if err != nil {
			return listErr(err)
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(ref.path), 0o755); err != nil {
			return err
		}
		n, err = list.Create(ref.path, mirror.ReserveLen, next)
		if errors.Is(err, fs.ErrExist) {
			return hintErr{fmt.Errorf("import into %s: the file exists; nothing was imported", ref),
				"import a whole list into a new file (--list NEW.list)"}
		}
		if err != nil {
			return listErr(err)
		}
	}
	fmt.Fprintf(stderr, "spider: imported %d lines into %s (claims dropped)\n", n, ref)
	return nil
}

// fullLines returns the lines of a whole list read from in, named from in
// messages: the header first, then one line each (blank lines and
// comments skipped), as list.ParseLine reads them.
func fullLines(in io.Reader, from string) func() (list.Entry, bool, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	no := 0
	return func() (list.Entry, bool, error) {
		for sc.Scan() {
			no++
			line := sc.Text()
			if no == 1 {
				if line != list.Header {
					return list.Entry{}, false, hintErr{fmt.Errorf("import --full: %s:1: not a whole list: its first line is not %q", from, list.Header),
						"spider list export --full writes a whole list; a file of URLs is imported without --full"}
				}
				continue
			}
			if t := strings.TrimSpace(line); t == "" || t[0] == '#' {
				continue
			}
			e, err := list.ParseLine(line)
			if err != nil {
				return list.Entry{}, false, hintErr{fmt.Errorf("import --full: %s:%d: %w", from, no, err), "fix or remove that line; nothing was imported"}
			}
			return e, true, nil
		}
		if err := sc.Err(); err != nil {
			return list.Entry{}, false, fmt.Errorf("import --full: read %s: %w", from, err)
		}
		if no == 0 {
			return list.Entry{}, false, hintErr{fmt.Errorf("import --full: %s is empty", from), "spider list export --full writes a whole list"}
		}
		return list.Entry{}, false, nil
	}
}

// compactList rewrites a list file with its padding restored.
func compactList(ctx context.Context, ref listRef, stdout io.Writer) error {
	if err := ref.fileOnly("spider list compact"); err != nil {
		return err
	}
	if err := requireList(ref.path); err != nil {
		return err
	}
	l, err := list.Open(ref.path, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		return err
	}
	st, err := l.Compact(ctx)
	if err != nil {
		return listErr(err)
	}
	fmt.Fprintf(stdout, "compacted %s: %d lines, %d bytes, in %.3fs\n", l.Path(), st.Lines, st.Bytes, st.HeldSec)
	return nil
}
