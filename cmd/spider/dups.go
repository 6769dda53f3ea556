package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// printDuplicates writes one line per group of URLs whose last 2xx bodies
// had the same SHA-256, "sha256 url url ...", and a closing count on its
// own line starting with '#'.
func printDuplicates(ctx context.Context, ref listRef, stdout io.Writer) error {
	if err := ref.require(); err != nil {
		return err
	}
	var h historyReader = meta.Open(ref.sidePath()+meta.Suffix, 30*time.Second)
	if ref.pg() {
		st, err := ref.openExisting(ctx, list.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		h = historyOf(st, 30*time.Second)
	}
	w := bufio.NewWriter(stdout)
	groups, urls := 0, 0
	err := h.Duplicates(func(sum string, us []string) bool {
		groups++
		urls += len(us)
		fmt.Fprintf(w, "%s %s\n", sum, strings.Join(us, " "))
		return true
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# identical bodies: %d groups, %d URLs\n", groups, urls)
	return w.Flush()
}
