package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
)

// printDuplicates writes one line per group of URLs whose last 2xx bodies
// had the same SHA-256, "sha256 url url ...", and a closing count on its
// own line starting with '#'.
func printDuplicates(ref listRef, stdout io.Writer) error {
	if err := ref.require(); err != nil {
		return err
	}
	path := ref.sidePath()
	w := bufio.NewWriter(stdout)
	groups, urls := 0, 0
	err := meta.Open(path+meta.Suffix, 30*time.Second).Duplicates(func(sum string, us []string) bool {
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
