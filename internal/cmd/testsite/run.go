package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// options are the command-line flags.
type options struct {
	addr      string
	shape     sitetest.Shape
	topics    int
	latency   time.Duration
	churn     time.Duration
	readyFile string
	describe  bool
	mix       string // -churn-mix: demo or fresh
	seed      uint64
	truthFile string
	reqLog    string
	stable    bool
}

// usageError marks errors in the command line (exit status 2). quiet means
// the flag package has already reported it.
type usageError struct {
	err   error
	quiet bool
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("testsite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "loopback `host:port` to listen on (port 0 picks a free one)")
	fs.Var(&o.shape, "shape", "site shape: forum (small topic pages) or articles (long pages, an image each)")
	fs.IntVar(&o.topics, "topics", sitetest.DefaultTopics, "number of topics (articles) at start")
	fs.DurationVar(&o.latency, "latency", 0, "delay before answering each request")
	fs.DurationVar(&o.churn, "churn", 10*time.Second, "interval between changes to the site (0 disables)")
	fs.StringVar(&o.readyFile, "ready-file", "", "write the base URL to `path` once listening")
	fs.BoolVar(&o.describe, "describe", false, "print what the site holds and exit without serving")
	fs.StringVar(&o.mix, "churn-mix", "demo", "changes to make: demo (add, silent edit, delete) or fresh (add, announced edit, silent edit, delete)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the fresh mix's choice of topics")
	fs.StringVar(&o.truthFile, "truth-file", "", "keep every live path's version in `path` (JSON; pages carry theirs in <meta name=\"x-version\">)")
	fs.BoolVar(&o.stable, "stable-pages", false, "articles shape: section and archive pages hold fixed ranges of articles, never shifted")
	fs.StringVar(&o.reqLog, "request-log", "", "log every request answered to `path`, one line each")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, usageError{err, true}
	}
	switch {
	case fs.NArg() > 0:
		return o, usageError{err: fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case o.topics < 1:
		return o, usageError{err: fmt.Errorf("-topics %d: must be at least 1", o.topics)}
	case o.latency < 0:
		return o, usageError{err: fmt.Errorf("-latency %v: must not be negative", o.latency)}
	case o.churn < 0:
		return o, usageError{err: fmt.Errorf("-churn %v: must not be negative", o.churn)}
	case o.mix != "demo" && o.mix != "fresh":
		return o, usageError{err: fmt.Errorf("-churn-mix %q: must be demo or fresh", o.mix)}
	}
	if err := checkLoopback(o.addr); err != nil {
		return o, usageError{err: err}
	}
	return o, nil
}

// checkLoopback refuses addresses that would expose the site beyond this
// machine: the host must be a loopback IP or "localhost".
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-addr %q: refusing non-loopback address (use 127.0.0.1)", addr)
}

// run serves the site until ctx is done, then shuts down and returns nil.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	count := newCounter()
	onRequest := count.add
	var reqLog *requestLog
	if o.reqLog != "" && !o.describe {
		if reqLog, err = openRequestLog(o.reqLog); err != nil {
			return err
		}
		defer func() {
			if cerr := reqLog.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("-request-log: %w", cerr)
			}
		}()
		onRequest = func(r sitetest.Request) { count.add(r); reqLog.add(r) }
	}
	site := sitetest.New(sitetest.Options{Shape: o.shape, Topics: o.topics, Latency: o.latency,
		OnRequest: onRequest, Versioned: o.truthFile != "", StablePages: o.stable})
	if o.describe {
		fmt.Fprintln(stdout, describe(o.shape, o.topics, site))
		return nil
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           site.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// Shutting down cancels requests still sleeping off -latency.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	// The server's goroutine, started here, ends when Serve returns: on
	// Shutdown or Close below, or on a listener error that it reports.
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	base := "http://" + ln.Addr().String() + "/"
	var tr truth
	if o.truthFile != "" {
		tr.record(site, "", time.Now())
		if err := tr.write(o.truthFile); err != nil {
			srv.Close()
			return fmt.Errorf("-truth-file: %w", err)
		}
	}
	fmt.Fprintf(stdout, "listening on %s\n", base)
	if o.readyFile != "" {
		if err := writeFileAtomic(o.readyFile, []byte(base+"\n")); err != nil {
			srv.Close()
			return err
		}
		defer os.Remove(o.readyFile)
	}
	var c stepper = &churner{site: site}
	if o.mix == "fresh" {
		c = newFreshChurner(site, o.seed)
	}
	l := loop{o: o, site: site, srv: srv, served: served, churn: c, truth: &tr, reqLog: reqLog, stdout: stdout}
	if err := l.run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, count)
	return nil
}

// stepper applies one change to the site and describes it ("KIND PATH").
type stepper interface{ step() string }

// loop is the serving site's life after start: a change every -churn
// interval until ctx is done.
type loop struct {
	o      options
	site   *sitetest.Site
	srv    *http.Server
	served <-chan error
	churn  stepper
	truth  *truth
	reqLog *requestLog // nil without -request-log
	stdout io.Writer
}

// run applies changes until ctx is done, then shuts the server down.
func (l *loop) run(ctx context.Context) error {
	var tick <-chan time.Time
	if l.o.churn > 0 {
		t := time.NewTicker(l.o.churn)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			desc := l.churn.step()
			fmt.Fprintf(l.stdout, "change: %s\n", desc)
			if l.o.truthFile != "" {
				l.truth.record(l.site, desc, time.Now())
				if err := l.truth.write(l.o.truthFile); err != nil {
					l.srv.Close()
					return fmt.Errorf("-truth-file: %w", err)
				}
			}
			if l.reqLog != nil {
				if err := l.reqLog.Flush(); err != nil {
					l.srv.Close()
					return fmt.Errorf("-request-log: %w", err)
				}
			}
		case err := <-l.served:
			return fmt.Errorf("serve: %w", err)
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := l.srv.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w", err)
			}
			return nil
		}
	}
}

// describe is the line -describe prints: the site's shape and size, how
// many paths a crawl from "/" finds, how many of them are images, and the
// deepest link level, e.g.
//
//	site: articles, 3000 topics, 6454 paths (3001 images), deepest level 150
func describe(shape sitetest.Shape, topics int, site *sitetest.Site) string {
	deepest, images := 0, 0
	for p, l := range site.Levels() {
		deepest = max(deepest, l)
		if strings.HasSuffix(p, ".png") {
			images++
		}
	}
	return fmt.Sprintf("site: %s, %d topics, %d paths (%d images), deepest level %d",
		shape, topics, len(site.Paths()), images, deepest)
}

// writeFileAtomic writes data to a temporary file next to name and renames it
// over name, so a reader sees either no file or the whole content.
func writeFileAtomic(name string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// exitCode reports err on stderr and maps it to the exit status.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if !ue.quiet {
			fmt.Fprintf(stderr, "testsite: error: %v\n", err)
		}
		return 2
	default:
		fmt.Fprintf(stderr, "testsite: error: %v\n", err)
		return 1
	}
}
