package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/hostgate"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

const usageCommands = `spider keeps a browsable on-disk mirror of a living web site fresh.

Usage:
  spider --profile fast|slow [--config FILE] [flags]   run one spider until stopped
  spider status [--list PATH|DSN] [--config FILE] [--json]  what the list holds, who runs
  spider show [--list PATH|DSN] [--json] URL                everything known about one URL
  spider seed [--list PATH|DSN] URL...                      add start URLs while spiders run
`

const usageHead = `
Run a fast and a slow spider side by side on one list: the fast one keeps the
top levels fresh within its window (1h), the slow one refreshes every page
within its window (24h) and any copy older than two weeks first. A second
spider with the same profile on the same list exits at once (status 0), which
makes a cron keepalive line safe.

Flags (they override the config file, which overrides the defaults):
`

const usageTail = `
Exit status:
  0  done, stopped by SIGINT/SIGTERM, or already running
  1  runtime failure (the message says what to do): a damaged list, a
     mirror that cannot be written, a dead start URL, a run that fetched
     nothing it was asked to
  2  usage error: bad flag, profile, config key or value, or a list or
     config file that does not exist
  130  a second SIGINT/SIGTERM during the graceful stop (nothing is lost:
       the claims in flight return at the next pass of any spider)
`

// run is the whole program, minus the process: it returns an error instead
// of exiting, and writes only to stdout and stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "status":
			return runStatus(ctx, args[1:], stdout)
		case "list":
			return runList(ctx, args[1:], os.Stdin, stdout, stderr)
		case "show":
			return runShow(ctx, args[1:], stdout)
		case "seed":
			return runSeed(ctx, args[1:], stdout, stderr)
		}
	}
	f := newRunFlags()
	f.fs.SetOutput(io.Discard)
	if err := f.fs.Parse(args); err != nil {
		return flagErr(err, "spider")
	}
	switch {
	case f.help:
		return printUsage(stdout, f.fs)
	case f.version:
		_, err := fmt.Fprintln(stdout, "spider", versionString())
		return err
	case f.fs.NArg() > 0:
		return usageErr{fmt.Errorf("unknown command %q", f.fs.Arg(0)), "commands: status, show, seed, list (" + listCommandNames() + "); or run a spider with --profile"}
	}
	cfg := &Config{}
	if f.config != "" {
		var err error
		if cfg, err = LoadConfig(f.config); err != nil {
			return err
		}
	}
	s, err := f.resolve(cfg)
	if err != nil {
		return err
	}
	if f.logFormat != "text" && f.logFormat != "json" {
		return usageErr{fmt.Errorf("invalid --log-format %q, must be one of (text|json)", f.logFormat), ""}
	}
	if f.quiet && f.vrb > 0 {
		return usageErr{fmt.Errorf("--quiet and --verbose contradict each other"), "give one of them: -q prints errors only, -v says more"}
	}
	tty := isTerminal(stderr)
	log := newLogger(stderr, f.vrb, f.quiet, f.logFormat, tty)
	for _, key := range cfg.Obsolete() {
		log.Warn("obsolete config key ignored; it can be removed", "key", key, "config", f.config)
	}
	var progress io.Writer
	if tty && !f.quiet && f.logFormat == "text" {
		progress = stderr
	}
	return runSpider(ctx, s, log, progress)
}

// runSpider runs one spider. With progress set (a terminal), a one-line
// progress report is kept up to date there.
func runSpider(ctx context.Context, s *Settings, log *slog.Logger, progress io.Writer) error {
	var starts []string
	for _, raw := range s.Starts {
		u, err := urlkey.Parse(raw)
		if err != nil {
			return usageErr{fmt.Errorf("start URL %q: %v", raw, err), "start URLs are absolute http:// or https:// URLs"}
		}
		starts = append(starts, u)
	}
	ref := newListRef(s.List, s.Schema, s.State)
	// --for bounds everything from here, waits for the list's lock included.
	signalled := ctx // done: stopped by SIGINT or SIGTERM, not by --for
	if s.For > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.For)
		defer cancel()
	}
	l, done, err := ref.openToRun(ctx, s.SpiderID, list.Options{Reserve: mirror.ReserveLen,
		OnWait: warnLockWait(log), WaitReport: crawl.DefaultLockWait})
	if errors.Is(err, list.ErrRunning) {
		log.Info("already running; exiting", "spider", s.SpiderID, "list", ref.String())
		return nil
	}
	if err != nil {
		return err
	}
	defer done()

	hosts, err := scopeHosts(ctx, l, starts, s.Hosts)
	if err != nil {
		return listErr(err)
	}
	if len(hosts) == 0 {
		return usageErr{errors.New("nothing to crawl: no start URL and the list holds no level-0 line"),
			"pass --start URL (or set start in the config file)"}
	}
	m, err := openMirror(l.StatePath(), s, log)
	if err != nil {
		return err
	}
	defer m.Close()

	// No connection into the local network unless the crawl starts there,
	// whatever a link, a redirect or a DNS answer says.
	loopback, private := scope.Allowed(hosts)
	s.Fetch.Refuse = func(a netip.Addr) bool { return scope.Refuse(a, loopback, private) }
	cfg := crawl.Config{
		Spider: s.SpiderID, Profile: s.profile(), Starts: starts, Hosts: hosts,
		Concurrency: s.Concurrency, Delay: s.Delay, Lease: s.Lease,
		UntilIdle: s.UntilIdle, MaxCycles: s.Cycles, Logger: log,
		ArchiveAfter: s.ArchiveAfter, ArchiveSpan: s.ArchiveSpan,
		RemoveArchived: s.RemoveArchived, Layout: mirror.Layout{FoldCase: s.CaseInsensitiveNames},
		IgnoreRobots: !s.Polite.Robots, HostConns: s.Polite.HostConns, MaxSlowDown: s.Polite.MaxSlowDown,
		Scope: s.Scope, MaxNewPerHost: s.NewPerHost, Traps: s.crawlTraps(), HubLevel: s.HubLevel,
		RequisiteEvery: requisiteMean(s), Sitemaps: s.Sitemaps,
	}
	closeGate, err := shareState(ctx, l, &cfg, hostgate.Options{Conns: s.Polite.HostConns, MaxSlow: s.Polite.MaxSlowDown})
	if err != nil {
		return err
	}
	defer closeGate()
	eng := crawl.New(cfg, l, m, fetch.New(s.Fetch))
	log.Info("started", "spider", s.SpiderID, "profile", s.Profile, "list", ref.String(), "mirror", m.Dir(),
		"window", s.Window, "shortest", s.Shortest, "longest", s.Longest, "max_level", s.MaxLevel, "stale", s.Stale, "batch", s.Batch,
		"delay", s.Delay)
	stopProgress := showProgress(progress, eng)
	sum, err := eng.Run(ctx)
	stopProgress()
	log.Info("stopped", "spider", s.SpiderID, "cycles", sum.Cycles, "fetched", sum.Fetched, "unchanged", sum.Unchanged, "archived", sum.Archived, "disallowed", sum.Disallowed,
		"errors", sum.Errors, "failed", sum.Failed, "added", sum.Added, "dropped", sum.Dropped, "bytes", sum.Bytes, "elapsed", sum.Elapsed.Round(1e6),
		"pages_per_s", rate(sum.Fetched, sum.Elapsed.Seconds()), "list_lines", sum.LastCycle.Lines)
	var lw *list.LockWaitError
	if errors.As(err, &lw) && errors.Is(err, context.DeadlineExceeded) && sum.Cycles == 0 {
		err = fmt.Errorf("no pass ran within --for %s: %w", s.For, err)
	}
	if err == nil && signalled.Err() == nil && sum.Failed+sum.Fetched+sum.Unchanged+sum.Archived == 0 {
		err = startsHeldBack(historyOf(l, 10*time.Second), starts)
	}
	return runVerdict(sum, err, signalled.Err() != nil, m.Dir())
}

// openMirror opens the mirror of a run on the list at listPath, and
// records it beside the list if it is the list's first (see runMirror).
func openMirror(listPath string, s *Settings, log *slog.Logger) (*mirror.Mirror, error) {
	dir, record, err := runMirror(listPath, s, log)
	if err != nil {
		return nil, err
	}
	m, err := mirror.Open(dir)
	if err != nil {
		return nil, hintErr{err, "check --mirror: the directory must be writable"}
	}
	if err := record(); err != nil {
		m.Close()
		return nil, hintErr{fmt.Errorf("record the mirror beside the list: %w", err), "the list's directory must be writable"}
	}
	return m, nil
}

// scopeHosts returns the hosts the spider follows links on: those of the
// start URLs, of the list's level-0 lines, and the configured ones.
func scopeHosts(ctx context.Context, l crawl.Store, starts, extra []string) ([]string, error) {
	seen := map[string]bool{}
	var hosts []string
	add := func(h string) {
		if h != "" && !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	for _, s := range starts {
		add(urlkey.Host(s))
	}
	for _, h := range extra {
		add(h)
	}
	err := l.Scan(ctx, func(e *list.Entry) error {
		if crawl.StartLine(*e) {
			// e.URL shares the scan's read buffer, which later lines
			// overwrite: the host is kept as a copy of its own.
			add(strings.Clone(urlkey.Host(e.URL)))
		}
		return nil
	})
	return hosts, err
}

func listErr(err error) error {
	var pe *list.ParseError
	if errors.As(err, &pe) {
		return hintErr{err, "the list was edited or damaged: fix or remove that line, or run spider list check --repair, which sets it aside in LIST.rejected (after a backup); nothing was written"}
	}
	return lockWaitErr(err)
}

func rate(n int, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(int(float64(n)/secs*10)) / 10
}

// newLogger logs warnings and errors only, unless told otherwise or
// talking to a terminal: under cron every line becomes mail, so silence
// means all is well; a person at a terminal also gets the info lines.
func newLogger(w io.Writer, verbose int, quiet bool, format string, tty bool) *slog.Logger {
	level := slog.LevelWarn
	if tty {
		level = slog.LevelInfo
	}
	switch {
	case quiet:
		level = slog.LevelError
	case verbose == 1:
		level = slog.LevelInfo
	case verbose >= 2:
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func printUsage(w io.Writer, fs *pflag.FlagSet) error {
	_, err := fmt.Fprint(w, usageCommands+listCommandLines(56)+usageHead+fs.FlagUsages()+usageTail)
	return err
}
