package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// runSeed adds start URLs (level 0) to the list, while spiders run: their
// next pass claims them, and their hosts are followed from then on.
func runSeed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("spider seed", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listPath := fs.String("list", "", "shared list: a file `path`, or a PostgreSQL DSN (postgres://…, host=…) (default \"spider.list\", or the config's)")
	config := fs.StringP("config", "c", "", "TOML config `file`")
	help := fs.BoolP("help", "h", false, "print this help")
	if err := fs.Parse(args); err != nil {
		return flagErr(err, "spider seed")
	}
	if *help {
		_, err := fmt.Fprint(stdout, "Usage: spider seed [--list PATH|DSN] URL...\n\nAdds start URLs (level 0); running spiders pick them up at their next pass.\n\n"+fs.FlagUsages())
		return err
	}
	if fs.NArg() == 0 {
		return usageErr{errors.New("spider seed needs at least one URL"), "spider seed https://example.org/"}
	}
	var adds []list.Add
	for _, raw := range fs.Args() {
		u, err := urlkey.Parse(raw)
		if err != nil {
			return usageErr{fmt.Errorf("seed %q: %v", raw, err), "start URLs are absolute http:// or https:// URLs"}
		}
		adds = append(adds, list.Add{URL: u, Level: 0})
	}
	ref, err := listRefOf(fs, *config, *listPath)
	if err != nil {
		return err
	}
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
	st, err := l.Add(ctx, adds)
	if err != nil {
		return listErr(err)
	}
	fmt.Fprintf(stderr, "spider: seeded %d new of %d URLs into %s\n", st.Added, len(adds), ref)
	if st.Lowered > 0 {
		fmt.Fprintf(stderr, "spider: %d listed URLs are start URLs now (level 0)\n", st.Lowered)
	}
	return nil
}
