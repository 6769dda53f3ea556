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
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// listCommands are the commands of spider list, for its usage, spider
// --help and the error that names them (one table, so no text forgets one).
var listCommands = []struct{ use, what string }{
	{"import [--level N] FILE|-", "add URLs (one a line, # comments)"},
	{"import --full FILE|-", "load a whole list (export --full) into an empty one"},
	{"export [--full]", "the list's URLs (or whole lines) to stdout"},
	{"check [--mirror DIR]", "verify the list and its mirror (exit 1: a problem)"},
	{"check --repair", "repair what is safe (after a backup), check again"},
	{"compact", "rewrite with the padding restored (after edits)"},
	{"duplicates", "URLs whose last bodies were byte-identical"},
}

// listCommandLines returns one usage line per list command, the
// description starting at column col.
func listCommandLines(col int) string {
	var b strings.Builder
	for _, c := range listCommands {
		use := "  spider list " + c.use
		fmt.Fprintf(&b, "%-*s %s\n", col-1, use, c.what)
	}
	return b.String()
}

// listCommandNames names the list commands: "import, export, ...".
func listCommandNames() string {
	var names []string
	for _, c := range listCommands {
		name, _, _ := strings.Cut(c.use, " ")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func listUsage() string { return "Usage:\n" + listCommandLines(42) + "\nFlags:\n" }

// importChunk is how many URLs one locked pass appends: the pass holds a
// map of the chunk, not of the list, and spiders get the lock in between.
const importChunk = 250_000

func runList(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("spider list", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listSpec := fs.String("list", "", "shared list: a file `path`, or a PostgreSQL DSN (postgres://…, host=…) (default \"spider.list\", or the config's)")
	config := fs.StringP("config", "c", "", "TOML config `file`")
	level := fs.Int("level", 0, "import: level of the added lines (listed URLs at a deeper level move up to it)")
	full := fs.Bool("full", false, "export: whole lines, header included, instead of URLs; import: load such lines, a whole list")
	repair := fs.Bool("repair", false, "check: repair the list first (a backup is written)")
	mirrorDir := fs.String("mirror", "", "check: mirror `dir`ectory (default: the config's, else the one the list records)")
	help := fs.BoolP("help", "h", false, "print this help")
	if err := fs.Parse(args); err != nil {
		return flagErr(err, "spider list")
	}
	if *help {
		_, err := fmt.Fprint(stdout, listUsage()+fs.FlagUsages())
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, listUsage()+fs.FlagUsages())
		return usageErr{errors.New("spider list needs a command: " + listCommandNames()), "spider list --help says what each does"}
	}
	if err := foreignFlag(fs, fs.Arg(0), *full); err != nil {
		return err
	}
	ref, err := listRefOf(fs, *config, *listSpec)
	if err != nil {
		return err
	}
	switch cmd := fs.Arg(0); {
	case cmd == "import" && fs.NArg() == 2 && *full:
		return importList(ctx, ref, fs.Arg(1), stdin, stderr)
	case cmd == "import" && fs.NArg() == 2:
		if *level < 0 || *level > list.MaxLevel {
			return usageErr{fmt.Errorf("--level must be 0 to %d, got %d", list.MaxLevel, *level), ""}
		}
		return importURLs(ctx, ref, fs.Arg(1), *level, stdin, stderr)
	case cmd == "import":
		return usageErr{errors.New("spider list import takes one FILE, or - for standard input"), ""}
	case cmd == "export" && fs.NArg() == 1:
		return exportList(ctx, ref, *full, stdout)
	case cmd == "compact" && fs.NArg() == 1:
		return compactList(ctx, ref, stdout)
	case cmd == "check" && fs.NArg() == 1:
		dir, err := mirrorDirOf(fs, *config, *mirrorDir, ref.sidePath())
		if err != nil {
			return err
		}
		if *repair {
			if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
				// Every copy would look missing, and be fetched again.
				return usageErr{fmt.Errorf("the mirror directory %s does not exist; nothing was repaired", dir), mirrorHint(ref)}
			}
			if err := repairList(ctx, ref, dir, stdout); err != nil {
				return err
			}
		}
		return checkList(ctx, ref, dir, stdout)
	case cmd == "duplicates" && fs.NArg() == 1:
		return printDuplicates(ctx, ref, stdout)
	default:
		return usageErr{fmt.Errorf("unknown list command %q", strings.Join(fs.Args(), " ")), "commands: " + listCommandNames() + "; spider list --help says what each does"}
	}
}

// listFlags are the flags each list command takes besides --list and
// --config.
var listFlags = map[string][]string{"import": {"level", "full"}, "export": {"full"}, "check": {"repair", "mirror"}}

// foreignFlag fails for a flag given to a list command that does not take
// it (export --repair, import --full --level): silently ignored, it would
// leave the user believing it did something. An unknown command is left
// to the caller.
func foreignFlag(fs *pflag.FlagSet, cmd string, full bool) error {
	takes, known := listFlags[cmd]
	if !known && cmd != "compact" && cmd != "duplicates" {
		return nil
	}
	var err error
	fs.Visit(func(f *pflag.Flag) {
		switch {
		case err != nil, f.Name == "list", f.Name == "config":
		case cmd == "import" && full && f.Name == "level":
			err = usageErr{errors.New("--level does not apply to spider list import --full: a whole list keeps its lines' levels"), "leave --level out, or import a file of URLs without --full"}
		case !slices.Contains(takes, f.Name):
			err = usageErr{fmt.Errorf("--%s does not apply to spider list %s", f.Name, cmd), "spider list --help says which flags each command takes"}
		}
	})
	return err
}

func importURLs(ctx context.Context, ref listRef, from string, level int, stdin io.Reader, stderr io.Writer) error {
	in, done, err := openInput(from, stdin, "give a file of URLs, one a line, or - for standard input")
	if err != nil {
		return err
	}
	defer done()
	if !ref.pg() {
		if err := os.MkdirAll(filepath.Dir(ref.path), 0o755); err != nil {
			return err
		}
	}
	l, err := ref.open(ctx, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		return err
	}
	defer l.Close()
	im := &importer{l: l, from: from, level: level}
	if err := im.readAll(ctx, in); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "spider: imported %d of %s into %s (%d already listed, %d invalid)\n", im.added, account.Counted(im.read, "URL", "URLs"), ref, im.read-im.bad-im.added, im.bad)
	if im.lowered > 0 {
		fmt.Fprintf(stderr, "spider: %d listed URLs moved up to level %d\n", im.lowered, level)
	}
	if im.bad > 0 {
		for _, b := range im.firstBad {
			fmt.Fprintf(stderr, "spider: skipped %s\n", b)
		}
		return hintErr{fmt.Errorf("import: %s skipped; the valid ones were imported", account.Counted(im.bad, "invalid line", "invalid lines")),
			"import takes absolute http:// or https:// URLs, one a line (a # starts a comment)"}
	}
	return nil
}

// importer adds the URLs of one import to the list: lines are read in
// batches and canonicalised on every CPU (the WHATWG parser is the costly
// part of an import), and added importChunk URLs per locked pass.
type importer struct {
	l     listStore
	from  string // the file read, for messages; "-" for standard input
	level int

	batch []importLine // read, not canonicalised yet
	chunk []list.Add   // canonical, not added yet

	read, added, lowered, bad int
	firstBad                  []string // the first few invalid lines, for the report
}

// readAll reads the URLs from in, one a line, and adds them to the list.
func (im *importer) readAll(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for no := 1; sc.Scan(); no++ {
		line := strings.TrimSpace(sc.Text())
		if no == 1 && strings.HasPrefix(line, "# spider-list") {
			return usageErr{fmt.Errorf("import: %s is a whole list (spider list export --full wrote it), not a file of URLs; nothing was imported", im.from),
				"import it with spider list import --full, into an empty list"}
		}
		if line == "" || line[0] == '#' {
			continue
		}
		im.read++
		it := importLine{no: no, raw: line}
		// A URL a line, then perhaps a comment: a URL holds no space.
		if i := strings.IndexAny(line, " \t"); i > 0 {
			it.raw = line[:i]
			if rest := strings.TrimSpace(line[i:]); rest[0] != '#' {
				it.err = errors.New("more than a URL on the line (one URL a line; a # after it starts a comment)")
			}
		}
		if im.batch = append(im.batch, it); len(im.batch) == 8192 {
			if err := im.process(ctx); err != nil {
				return err
			}
		}
	}
	if err := im.process(ctx); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("import: read %s: %w", im.from, err)
	}
	return im.flush(ctx)
}

// process canonicalises the batch, in input order, and moves its valid
// URLs to the chunk, adding the chunk whenever it is full.
func (im *importer) process(ctx context.Context) error {
	canonicalise(im.batch)
	for _, it := range im.batch {
		if it.err != nil {
			if im.bad++; len(im.firstBad) < 5 {
				im.firstBad = append(im.firstBad, fmt.Sprintf("%s:%d: %v", im.from, it.no, it.err))
			}
			continue
		}
		if im.chunk = append(im.chunk, list.Add{URL: it.url, Level: im.level, Width: it.width}); len(im.chunk) == importChunk {
			if err := im.flush(ctx); err != nil {
				return err
			}
		}
	}
	im.batch = im.batch[:0]
	return nil
}

// flush adds the chunk to the list in one locked pass.
func (im *importer) flush(ctx context.Context) error {
	if len(im.chunk) == 0 {
		return nil
	}
	st, err := im.l.Add(ctx, im.chunk)
	im.added += st.Added
	im.lowered += st.Lowered
	im.chunk = im.chunk[:0]
	return listErr(err)
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
				if it.err != nil {
					continue
				}
				if it.url, it.err = urlkey.Parse(it.raw); it.err == nil {
					it.width = mirror.ReserveLen(it.url)
				}
			}
		})
	}
	wg.Wait()
}

func exportList(ctx context.Context, ref listRef, full bool, stdout io.Writer) error {
	l, err := ref.openExisting(ctx, list.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	w := bufio.NewWriterSize(stdout, 1<<20)
	if full {
		fmt.Fprintln(w, list.Header)
	}
	var buf []byte
	line := func(e *list.Entry) error {
		if full {
			buf = list.AppendLine(buf, e, 0)
		} else {
			buf = append(append(buf, e.URL...), '\n')
		}
		return nil
	}
	f, chunked := l.(fileStore)
	if !chunked {
		// A database's read is a snapshot that holds up no pass.
		err := l.Scan(ctx, func(e *list.Entry) error {
			buf = buf[:0]
			line(e)
			_, err := w.Write(buf)
			return err
		})
		if err != nil {
			return listErr(err)
		}
		return w.Flush()
	}
	// The list file is read in chunks under its lock and written out
	// without it, so a slow reader of stdout (a pager) never stalls the
	// spiders.
	for off := int64(0); ; {
		buf = buf[:0]
		next, err := f.ScanChunk(ctx, off, 4<<20, line)
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
