package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// links finds the values of href and src attributes written in double
// quotes, up to a fragment: all the test site writes, at the least cost.
// Only HTML is searched: an image's bytes may spell `src="` by chance.
var links = regexp.MustCompile(`(?:href|src)="([^"#]*)`)

// result is what a crawl did.
type result struct {
	pages, errors int
	bytes         int64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("floorcrawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conc := fs.Int("c", 16, "connections (and fetches) at once")
	maxPages := fs.Int("max", 1_000_000, "stop after this many fetches")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *conc < 1 || *maxPages < 1 {
		fmt.Fprintln(stderr, "usage: floorcrawl [-c N] [-max N] URL")
		return 2
	}
	start, err := url.Parse(fs.Arg(0))
	if err != nil || start.Scheme != "http" || !loopback(start.Hostname()) {
		fmt.Fprintf(stderr, "floorcrawl: error: %q is not an http URL of a loopback address\n", fs.Arg(0))
		fmt.Fprintln(stderr, "hint: floorcrawl fetches without any politeness; point it at a local test site")
		return 2
	}
	began := time.Now()
	res, err := crawl(ctx, start, *conc, *maxPages)
	if err != nil {
		fmt.Fprintf(stderr, "floorcrawl: error: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "fetched %d pages, %d bytes, %d errors in %v\n", res.pages, res.bytes, res.errors, time.Since(began).Round(time.Millisecond))
	return 0
}

// loopback reports whether host is a loopback IP address or "localhost".
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// crawl fetches start and every page of its host that links lead to, conc
// at a time, at most max, and reports what it did; the error is the start
// page's.
func crawl(ctx context.Context, start *url.URL, conc, max int) (result, error) {
	tr := &http.Transport{MaxConnsPerHost: conc, MaxIdleConnsPerHost: conc}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Minute}

	var (
		mu      sync.Mutex
		changed = sync.NewCond(&mu)
		seen    = map[string]bool{start.String(): true}
		stack   = []string{start.String()} // last found first
		active  int
		res     result
		first   error
		wg      sync.WaitGroup
	)
	for range conc {
		wg.Go(func() {
			mu.Lock()
			defer mu.Unlock()
			for {
				for len(stack) == 0 && active > 0 && ctx.Err() == nil {
					changed.Wait()
				}
				if len(stack) == 0 || ctx.Err() != nil || res.pages+res.errors+active >= max {
					changed.Broadcast()
					return
				}
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				active++
				mu.Unlock()
				found, n, err := fetch(ctx, hc, u, start.Host)
				mu.Lock()
				active--
				if err != nil {
					res.errors++
					if u == start.String() {
						first = err
					}
				} else {
					res.pages++
					res.bytes += n
				}
				for _, l := range found {
					if !seen[l] {
						seen[l] = true
						stack = append(stack, l)
					}
				}
				changed.Broadcast()
			}
		})
	}
	// Wake waiting workers when ctx ends.
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		changed.Broadcast()
		mu.Unlock()
	})
	wg.Wait()
	stop()
	return res, first
}

// fetch gets u and returns the absolute http URLs on host that its body
// links to if it is HTML (the pages' <img src> included), and the body's
// size.
func fetch(ctx context.Context, hc *http.Client, u, host string) ([]string, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, int64(len(body)), fmt.Errorf("%s: %s", u, resp.Status)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		return nil, int64(len(body)), nil
	}
	base := resp.Request.URL
	var out []string
	for _, m := range links.FindAllSubmatch(body, -1) {
		l, err := base.Parse(string(m[1]))
		if err != nil || l.Scheme != "http" || l.Host != host {
			continue
		}
		l.Fragment, l.RawFragment = "", ""
		out = append(out, l.String())
	}
	return out, int64(len(body)), nil
}
