package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
)

// Status is the output of spider status --json. Field names are stable.
type Status struct {
	List   string         `json:"list"`
	At     time.Time      `json:"at"`
	Lines  int            `json:"lines"`
	States map[string]int `json:"states"` // state name -> lines
	Levels []LevelStatus  `json:"levels"` // by level, ascending
	Claims map[string]int `json:"claims"` // spider_id -> lines claimed now
	Due    map[string]int `json:"due"`    // spider_id -> unclaimed lines due now under its profile
	// Merged from the spiders' published statuses (since each started):
	ArchivedLastDay []crawl.Archival      `json:"archived_last_day"`      // newest first; see ArchivedFrom
	SlowestHosts    []crawl.HostTime      `json:"slowest_hosts"`          // by mean fetch time, slowest first
	FrequentErrors  []crawl.ErrorCount    `json:"frequent_errors"`        // most frequent first
	Filtered        map[string]int        `json:"filtered"`               // reason -> distinct links the defences cut, summed over spiders
	CappedPatterns  []crawl.CappedPattern `json:"capped_patterns"`        // URL patterns whose links are no longer taken
	Sitemaps        []crawl.SitemapHost   `json:"sitemaps"`               // by host: what the spiders' sitemap reads found
	Turnovers       []TurnoverStatus      `json:"turnovers"`              // start pages whose list turned over between two polls
	Spiders         []list.SpiderStatus   `json:"spiders"`                // every spider that ran on the list
	Files           FileSizes             `json:"files"`                  // bytes on disk of the list and the files beside it
	StalledLock     *StalledLock          `json:"stalled_lock,omitempty"` // the list's lock, if one process has held it for long
	Account         *Account              `json:"account"`                // per host: budget, promises, freshness (account.go)

	// Where ArchivedLastDay comes from: "mirror", the index of the mirror
	// directory Mirror (every spider's archivals, across restarts), or
	// "spiders", what they published, when that mirror has no index.
	ArchivedFrom string `json:"archived_from"`
	Mirror       string `json:"mirror"`
}

// LevelStatus summarises one level of the list.
type LevelStatus struct {
	Level      int        `json:"level"`
	Lines      int        `json:"lines"`
	Copies     int        `json:"copies"`      // lines with a copy in the mirror
	OldestCopy *time.Time `json:"oldest_copy"` // null if no copy
}

func runStatus(ctx context.Context, args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("spider status", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listPath := fs.String("list", "", "shared list: a file `path`, or a PostgreSQL DSN (postgres://…, host=…) (default \"spider.list\", or the config's)")
	config := fs.StringP("config", "c", "", "TOML config `file`")
	mirrorDir := fs.String("mirror", "", "mirror `dir`ectory, whose index lists the archived pages (default: the config's, else the one the list records)")
	asJSON := fs.Bool("json", false, "print JSON (schema: see README)")
	help := fs.BoolP("help", "h", false, "print this help")
	if err := fs.Parse(args); err != nil {
		return flagErr(err, "spider status")
	}
	if *help {
		_, err := fmt.Fprint(stdout, "Usage: spider status [--list PATH|DSN] [--mirror DIR] [--config FILE] [--json]\n\n"+fs.FlagUsages())
		return err
	}
	if fs.NArg() > 0 {
		return usageErr{fmt.Errorf("status takes no arguments, got %q", fs.Arg(0)), ""}
	}
	ref, err := listRefOf(fs, *config, *listPath)
	if err != nil {
		return err
	}
	mdir, err := mirrorDirOf(fs, *config, *mirrorDir, ref.sidePath())
	if err != nil {
		return err
	}
	cfg := &Config{}
	if *config != "" {
		if cfg, err = LoadConfig(*config); err != nil {
			return err
		}
	}
	l, err := ref.openExisting(ctx, list.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	st, err := collectStatus(ctx, l, ref.String(), cfg)
	if err != nil {
		return listErr(err)
	}
	archivedFromMirror(st, mdir)
	if *asJSON {
		return writeJSON(stdout, st)
	}
	return printStatus(stdout, st)
}

// states are the list's states, in the order status prints them.
var states = []list.State{list.Found, list.Claimed, list.Downloaded, list.Archived, list.Error, list.Disallowed}

// collectStatus reads the status of list l, which messages call name.
func collectStatus(ctx context.Context, l listStore, name string, cfg *Config) (*Status, error) {
	var err error
	st := &Status{List: name, At: time.Now().UTC(), States: map[string]int{}, Claims: map[string]int{}, Due: map[string]int{}, Turnovers: []TurnoverStatus{}}
	for _, s := range states {
		st.States[s.String()] = 0 // every state, so that a script may read any
	}
	if st.Spiders, err = l.Statuses(ctx); err != nil {
		return nil, err
	}
	if st.Spiders == nil {
		st.Spiders = []list.SpiderStatus{}
	}
	// What is due for each spider, under the profile it published.
	due := map[string]*claim.Counter{}
	var published []crawl.Status
	for _, sp := range st.Spiders {
		var cs crawl.Status
		if json.Unmarshal(sp.Extra, &cs) == nil && cs.WindowSec > 0 {
			due[sp.Spider] = claim.NewCounter(cs.ClaimProfile(), st.At)
			published = append(published, cs)
			st.Turnovers = append(st.Turnovers, turnoversOf(sp.Spider, &cs)...)
		}
	}
	st.ArchivedLastDay, st.SlowestHosts, st.FrequentErrors = mergeObservations(published, st.At.Add(-24*time.Hour))
	st.ArchivedFrom = "spiders"
	st.Filtered, st.CappedPatterns = mergeFiltered(published)
	st.Sitemaps = mergeSitemaps(published)
	sortTurnovers(st.Turnovers)
	profiles, from, err := accountProfiles(published, cfg)
	if err != nil {
		return nil, err
	}
	tally := account.New(profiles, st.At)
	levels := map[int]*LevelStatus{}
	err = l.Scan(ctx, func(e *list.Entry) error {
		for _, c := range due {
			c.Add(e)
		}
		tally.Add(e)
		st.Lines++
		st.States[e.State.String()]++
		if e.Spider != "" {
			st.Claims[strings.Clone(e.Spider)]++ // e's strings are the scan's buffer
		}
		ls := levels[e.Level]
		if ls == nil {
			ls = &LevelStatus{Level: e.Level}
			levels[e.Level] = ls
		}
		ls.Lines++
		if e.File != "" && !e.Modified.IsZero() && e.State != list.Archived && e.State != list.Disallowed { // their time is the last check
			ls.Copies++
			if ls.OldestCopy == nil || e.Modified.Before(*ls.OldestCopy) {
				t := e.Modified
				ls.OldestCopy = &t
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, c := range due {
		st.Due[id] = c.Due()
	}
	for _, ls := range levels {
		st.Levels = append(st.Levels, *ls)
	}
	sort.Slice(st.Levels, func(i, j int) bool { return st.Levels[i].Level < st.Levels[j].Level })
	delay, delayFrom := spidersDelay(published, cfg)
	st.Account = accountOf(ctx, l, tally, profiles, from, delay, delayFrom, st.Lines, st.At)
	if st.Files, err = sizesOf(ctx, l); err != nil {
		return nil, err
	}
	if f, ok := l.(fileStore); ok {
		st.StalledLock = stalledLock(f.List)
	}
	return st, nil
}

// archivedFromMirror replaces the archivals the spiders remember in st by
// those of the mirror's index at dir, which every spider's archivals reach
// (once published) whatever stopped or restarted since. A mirror without a
// readable index leaves st as it is (ArchivedFrom "spiders").
func archivedFromMirror(st *Status, dir string) {
	st.Mirror = dir
	ms, err := mirrorindex.ReadState(dirFiles(dir))
	if err != nil {
		return
	}
	since := st.At.Add(-24 * time.Hour)
	st.ArchivedLastDay = []crawl.Archival{}
	for _, a := range ms.Archived {
		if !a.Time.Before(since) {
			st.ArchivedLastDay = append(st.ArchivedLastDay, crawl.Archival{URL: a.URL, At: a.Time})
		}
	}
	sort.SliceStable(st.ArchivedLastDay, func(i, j int) bool { return st.ArchivedLastDay[i].At.After(st.ArchivedLastDay[j].At) })
	st.ArchivedFrom = "mirror"
}

// dirFiles reads a mirror's files without opening the mirror, which a
// reader must not create or clean.
type dirFiles string

func (d dirFiles) ReadFile(rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// bytesText writes n bytes for a person: 512 B, 3.4 KB, 16.8 MB, 1.2 GB.
func bytesText(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n), ""
	for _, s := range []string{"KB", "MB", "GB", "TB"} {
		f /= unit
		suffix = s
		if f < unit {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", f, suffix)
}

func printStatus(w io.Writer, st *Status) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "list\t%s\t%d lines\n", st.List, st.Lines)
	if sl := st.StalledLock; sl != nil {
		fmt.Fprintf(tw, "lock\tSTALLED: held by pid %d (spider %s) for %s; every spider of the list waits (resume it: kill -CONT %d)\n",
			sl.PID, sl.Spider, time.Duration(sl.HeldSec*float64(time.Second)), sl.PID)
	}
	if f := st.Files; f.Database != "" {
		fmt.Fprintf(tw, "in database\tschema %s: lines %s, history %s, host pace %s\n",
			f.Database, bytesText(f.List), bytesText(f.Meta), bytesText(f.HostsD))
		fmt.Fprintf(tw, "on disk\tin %s (this machine's): account series, mirror record\n", f.State)
	} else {
		fmt.Fprintf(tw, "on disk\tlist %s, history (.meta) %s, host pace (.hosts.d) %s, journal %s\n",
			bytesText(f.List), bytesText(f.Meta), bytesText(f.HostsD), bytesText(f.Journal))
	}
	fmt.Fprintf(tw, "states\t")
	for _, s := range states {
		fmt.Fprintf(tw, "%s %d  ", s, st.States[s.String()])
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "\nlevel\tlines\tcopies\toldest copy")
	for _, ls := range st.Levels {
		oldest := "-"
		if ls.OldestCopy != nil {
			oldest = fmt.Sprintf("%s (%s ago)", ls.OldestCopy.Format(time.RFC3339), time.Since(*ls.OldestCopy).Round(time.Second))
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\n", ls.Level, ls.Lines, ls.Copies, oldest)
	}
	fmt.Fprintln(tw, "\nspider\trunning\tpid\tdue now\tclaims\tlast pass\tlines\tadded\trecorded\tclaimed\tlock held")
	for _, sp := range st.Spiders {
		running := "no"
		if sp.Running {
			running = "yes"
		}
		last := "-"
		if !sp.Heartbeat.IsZero() {
			last = time.Since(sp.Heartbeat).Round(time.Second).String() + " ago"
		}
		c := sp.LastCycle
		due := "-"
		if n, ok := st.Due[sp.Spider]; ok {
			due = fmt.Sprint(n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%.3fs\n", sp.Spider, running, sp.PID, due, st.Claims[sp.Spider],
			last, c.Lines, c.Added, c.Recorded, c.Claimed, c.HeldSec)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	from := "the index of the mirror " + st.Mirror
	if st.ArchivedFrom != "mirror" {
		from = "the spiders' memory since each started: no index in the mirror " + st.Mirror + " (--mirror DIR)"
	}
	fmt.Fprintf(w, "\narchived in the last day: %d (from %s)\n", len(st.ArchivedLastDay), from)
	for i, a := range st.ArchivedLastDay {
		if i == 5 {
			fmt.Fprintf(w, "  ... (--json lists them all)\n")
			break
		}
		fmt.Fprintf(w, "  %s  %s\n", a.At.Format(time.RFC3339), a.URL)
	}
	if len(st.SlowestHosts) > 0 {
		fmt.Fprintln(w, "slowest hosts:")
		for _, h := range st.SlowestHosts {
			fmt.Fprintf(w, "  %-30s %s mean over %d fetches\n", h.Host, account.Duration(h.MeanSec), h.Fetches)
		}
	}
	if len(st.FrequentErrors) > 0 {
		fmt.Fprintln(w, "most frequent errors:")
		for _, e := range st.FrequentErrors {
			fmt.Fprintf(w, "  %6d  %s\n", e.Count, e.Error)
		}
	}
	printFiltered(w, st)
	printSitemaps(w, st)
	printTurnovers(w, st)
	printAccount(w, st.Account)
	return nil
}

// mergeObservations combines what the spiders published: archivals since
// since (newest first, each URL once), hosts by mean fetch time over all
// spiders' fetches, failures summed by kind.
func mergeObservations(sts []crawl.Status, since time.Time) ([]crawl.Archival, []crawl.HostTime, []crawl.ErrorCount) {
	arch := []crawl.Archival{}
	seen := map[string]bool{}
	hosts := map[string]*crawl.HostTime{}
	errs := map[string]int{}
	for _, s := range sts {
		for _, a := range s.ArchivedLastDay {
			if !a.At.Before(since) && !seen[a.URL] {
				seen[a.URL] = true
				arch = append(arch, a)
			}
		}
		for _, h := range s.SlowestHosts {
			m := hosts[h.Host]
			if m == nil {
				m = &crawl.HostTime{Host: h.Host}
				hosts[h.Host] = m
			}
			m.MeanSec = (m.MeanSec*float64(m.Fetches) + h.MeanSec*float64(h.Fetches)) / float64(m.Fetches+h.Fetches)
			m.Fetches += h.Fetches
		}
		for _, e := range s.FrequentErrors {
			errs[e.Error] += e.Count
		}
	}
	sort.Slice(arch, func(i, j int) bool { return arch[i].At.After(arch[j].At) })
	slow := []crawl.HostTime{}
	for _, h := range hosts {
		slow = append(slow, *h)
	}
	sort.Slice(slow, func(i, j int) bool { return slow[i].MeanSec > slow[j].MeanSec })
	frequent := []crawl.ErrorCount{}
	for k, n := range errs {
		frequent = append(frequent, crawl.ErrorCount{Error: k, Count: n})
	}
	sort.Slice(frequent, func(i, j int) bool { return frequent[i].Count > frequent[j].Count })
	return arch, slow[:min(5, len(slow))], frequent[:min(5, len(frequent))]
}
