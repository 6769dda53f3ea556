package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
)

// mergeSitemaps combines the spiders' reads of each host's sitemaps:
// counts summed, the last read the latest; by host.
func mergeSitemaps(sts []crawl.Status) []crawl.SitemapHost {
	by := map[string]*crawl.SitemapHost{}
	for _, s := range sts {
		for _, h := range s.Sitemaps {
			m := by[h.Host]
			if m == nil {
				m = &crawl.SitemapHost{Host: h.Host}
				by[h.Host] = m
			}
			m.Reads += h.Reads
			m.Files += h.Files
			m.URLs += h.URLs
			m.Taken += h.Taken
			m.Hinted += h.Hinted
			if h.Last.After(m.Last) {
				m.Last = h.Last
			}
		}
	}
	out := []crawl.SitemapHost{}
	for _, m := range by {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b crawl.SitemapHost) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// printSitemaps writes spider status's lines on the sitemaps read.
func printSitemaps(w io.Writer, st *Status) {
	if len(st.Sitemaps) == 0 {
		return
	}
	fmt.Fprintln(w, "sitemaps read (since each spider started):")
	for i, h := range st.Sitemaps {
		if i == 10 {
			fmt.Fprintf(w, "  ... (--json lists every host)\n")
			break
		}
		fmt.Fprintf(w, "  %-30s %d reads, %d files, %d URLs listed, %d taken, %d with a lastmod; last %s\n",
			h.Host, h.Reads, h.Files, h.URLs, h.Taken, h.Hinted, h.Last.Format(time.RFC3339))
	}
}
