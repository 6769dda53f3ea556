package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

const listUsage = `Usage:
  spider list import [--level N] FILE|-   add URLs (one a line, # comments) to the list
  spider list export [--full]             write the list's URLs (or whole lines) to stdout
  spider list check [--mirror DIR]        verify the list and its mirror (exit 1 on a problem)
  spider list check --repair              fix what can be fixed safely, after a backup, and check again
  spider list compact                     rewrite the list with its padding restored (after hand edits)
  spider list duplicates                  URLs whose last bodies were byte-identical, a group a line

Flags:
`

// importChunk is how many URLs one locked pass appends: the pass holds a
// map of the chunk, not of the list, and spiders get the lock in between.
const importChunk = 250_000

func runList(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("spider list", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listPath := fs.String("list", "", "shared list `path` (default \"spider.list\", or the config's)")
	config := fs.StringP("config", "c", "", "TOML config `file`")
	level := fs.Int("level", 0, "import: level of the added lines (listed URLs at a deeper level move up to it)")
	full := fs.Bool("full", false, "export: whole lines, header included, instead of URLs")
	repair := fs.Bool("repair", false, "check: repair the list first (a backup is written)")
	mirrorDir := fs.String("mirror", "", "check: mirror `dir`ectory (default \"mirror\", or the config's)")
	help := fs.BoolP("help", "h", false, "print this help")
	if err := fs.Parse(args); err != nil {
		return usageErr{err, "spider list --help lists the flags"}
	}
	if *help || fs.NArg() == 0 {
		fmt.Fprint(stdout, listUsage+fs.FlagUsages())
		if *help {
			return nil
		}
		return usageErr{errors.New("spider list needs a command: import or export"), ""}
	}
	path, err := listPathOf(fs, *config, *listPath)
	if err != nil {
		return err
	}
	switch cmd := fs.Arg(0); {
	case cmd == "import" && fs.NArg() == 2:
		if *level < 0 || *level > list.MaxLevel {
			return usageErr{fmt.Errorf("--level must be 0 to %d, got %d", list.MaxLevel, *level), ""}
		}
		return importURLs(ctx, path, fs.Arg(1), *level, stdin, stderr)
	case cmd == "import":
		return usageErr{errors.New("spider list import takes one FILE, or - for standard input"), ""}
	case cmd == "export" && fs.NArg() == 1:
		return exportList(ctx, path, *full, stdout)
	case cmd == "compact" && fs.NArg() == 1:
		if _, err := os.Stat(path); err != nil {
			return hintErr{fmt.Errorf("list %s: %w", path, err), "pass --list with the path your spiders use"}
		}
		l, err := list.Open(path, list.Options{Reserve: mirror.ReserveLen})
		if err != nil {
			return err
		}
		st, err := l.Compact(ctx)
		if err != nil {
			return listErr(err)
		}
		fmt.Fprintf(stdout, "compacted %s: %d lines, %d bytes, in %.3fs\n", l.Path(), st.Lines, st.Bytes, st.HeldSec)
		return nil
	case cmd == "check" && fs.NArg() == 1:
		dir, err := mirrorDirOf(fs, *config, *mirrorDir)
		if err != nil {
			return err
		}
		if *repair {
			if err := repairList(ctx, path, dir, stdout); err != nil {
				return err
			}
		}
		return checkList(ctx, path, dir, stdout)
	case cmd == "duplicates" && fs.NArg() == 1:
		return printDuplicates(path, stdout)
	default:
		return usageErr{fmt.Errorf("unknown list command %q", strings.Join(fs.Args(), " ")), "commands: import FILE|-, export, check [--repair], compact, duplicates"}
	}
}

func importURLs(ctx context.Context, path, from string, level int, stdin io.Reader, stderr io.Writer) error {
	in := stdin
	if from != "-" {
		f, err := os.Open(from)
		if err != nil {
			return hintErr{fmt.Errorf("import: %w", err), "give a file of URLs, one a line, or - for standard input"}
		}
		defer f.Close()
		in = f
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	l, err := list.Open(path, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		return err
	}
	var (
		chunk            []list.Add
		read, added, bad int
		lowered          int
		firstBad         []string
		sc               = bufio.NewScanner(in)
		batch            []importLine
	)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		st, err := l.Add(ctx, chunk)
		added += st.Added
		lowered += st.Lowered
		chunk = chunk[:0]
		return listErr(err)
	}
	// Canonicalising is the costly part of an import (the WHATWG parser),
	// so batches of lines are canonicalised on every CPU, in input order.
	process := func() error {
		canonicalise(batch)
		for _, it := range batch {
			if it.err != nil {
				if bad++; len(firstBad) < 5 {
					firstBad = append(firstBad, fmt.Sprintf("%s:%d: %v", from, it.no, it.err))
				}
				continue
			}
			if chunk = append(chunk, list.Add{URL: it.url, Level: level, Width: it.width}); len(chunk) == importChunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		batch = batch[:0]
		return nil
	}
	for no := 1; sc.Scan(); no++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		read++
		if batch = append(batch, importLine{no: no, raw: line}); len(batch) == 8192 {
			if err := process(); err != nil {
				return err
			}
		}
	}
	if err := process(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("import: read %s: %w", from, err)
	}
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "spider: imported %d of %d URLs into %s (%d already listed, %d invalid)\n", added, read, l.Path(), read-bad-added, bad)
	if lowered > 0 {
		fmt.Fprintf(stderr, "spider: %d listed URLs moved up to level %d\n", lowered, level)
	}
	if bad > 0 {
		for _, b := range firstBad {
			fmt.Fprintf(stderr, "spider: skipped %s\n", b)
		}
		return hintErr{fmt.Errorf("import: %d invalid URLs skipped; the valid ones were imported", bad), "import takes absolute http:// or https:// URLs, one a line"}
	}
	return nil
}

// importLine is one URL of an import on its way to the list.
type importLine struct {
	no       int
	raw, url string
	width    int
	err      error
}

// canonicalise fills in url, width and err of every line, on every CPU.
func canonicalise(batch []importLine) {
	n := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for i := w; i < len(batch); i += n {
				it := &batch[i]
				if it.url, it.err = urlkey.Parse(it.raw); it.err == nil {
					it.width = mirror.ReserveLen(it.url)
				}
			}
		})
	}
	wg.Wait()
}

func exportList(ctx context.Context, path string, full bool, stdout io.Writer) error {
	if _, err := os.Stat(path); err != nil {
		return hintErr{fmt.Errorf("list %s: %w", path, err), "pass --list with the path your spiders use"}
	}
	l, err := list.Open(path, list.Options{})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdout, 1<<20)
	if full {
		fmt.Fprintln(w, list.Header)
	}
	// The list is read in chunks under its lock and written out without it,
	// so a slow reader of stdout (a pager) never stalls the spiders.
	var buf []byte
	for off := int64(0); ; {
		buf = buf[:0]
		next, err := l.ScanChunk(ctx, off, 4<<20, func(e *list.Entry) error {
			if full {
				buf = list.AppendLine(buf, e, 0)
			} else {
				buf = append(append(buf, e.URL...), '\n')
			}
			return nil
		})
		if err != nil {
			return listErr(err)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if next == off {
			return w.Flush()
		}
		off = next
	}
}
