package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/list"
)

// Shown is everything known about one URL: `spider show URL --json`.
type Shown struct {
	URL     string       `json:"url"`
	Listed  bool         `json:"listed"` // false: the list has no line for it
	Line    *ShownLine   `json:"line,omitempty"`
	Copy    *ShownCopy   `json:"copy,omitempty"`
	History *meta.Record `json:"history,omitempty"` // null: never fetched (or history lost)
	Same    []string     `json:"same_body_as"`      // URLs whose last body was identical
	Due     []ShownDue   `json:"due"`               // per running spider
	// Why the defences cut links to it, for a URL without a line: "" if
	// they did not.
	Filtered string `json:"filtered,omitempty"`
}

// ShownLine is the URL's line in the list.
type ShownLine struct {
	File     string     `json:"file"`
	Spider   string     `json:"spider"` // claimant, "" if unclaimed
	Level    int        `json:"level"`
	State    string     `json:"state"`
	Modified *time.Time `json:"last_modification"`
	// Due is the line's due (list.Entry.Due): when it was found, for a
	// line never visited; when its change model expects a change, for a
	// copy; nil while it has neither. Hinted says a hub or a sitemap
	// announced a change after the copy was taken: it is due at once.
	Due    *time.Time `json:"due"`
	Hinted bool       `json:"hinted"`
}

// ShownCopy is the file in the mirror, when the mirror directory is known.
type ShownCopy struct {
	Path   string     `json:"path"`
	Exists bool       `json:"exists"`
	Size   int64      `json:"size"`
	MTime  *time.Time `json:"mtime"`
}

// ShownDue says when the URL is next due for one spider's profile.
type ShownDue struct {
	Spider string    `json:"spider"`
	Due    bool      `json:"due"`            // due now
	At     time.Time `json:"at,omitzero"`    // when it becomes due, if not now and ever
	Never  bool      `json:"never,omitzero"` // beyond the profile's level limit
}

func runShow(ctx context.Context, args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("spider show", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listPath := fs.String("list", "", "shared list: a file `path`, or a PostgreSQL DSN (postgres://…, host=…) (default \"spider.list\", or the config's)")
	mirrorDir := fs.String("mirror", "", "mirror `dir`ectory, to check the copy (default: the config's, else the one the list records)")
	config := fs.StringP("config", "c", "", "TOML config `file`")
	asJSON := fs.Bool("json", false, "print JSON")
	help := fs.BoolP("help", "h", false, "print this help")
	if err := fs.Parse(args); err != nil {
		return flagErr(err, "spider show")
	}
	if *help {
		_, err := fmt.Fprint(stdout, "Usage: spider show [--list PATH|DSN] [--mirror DIR] [--json] URL\n\n"+
			"Everything known about one URL: its list line, its copy, its fetch history\n"+
			"(status, error, attempts, validators, checksum, redirect), and when it is due.\n\n"+fs.FlagUsages())
		return err
	}
	if fs.NArg() != 1 {
		return usageErr{errors.New("spider show takes one URL"), "spider show https://example.org/page"}
	}
	u, err := urlkey.Parse(fs.Arg(0))
	if err != nil {
		return usageErr{fmt.Errorf("show %q: %v", fs.Arg(0), err), "give an absolute http:// or https:// URL"}
	}
	ref, err := listRefOf(fs, *config, *listPath)
	if err != nil {
		return err
	}
	mdir, err := mirrorDirOf(fs, *config, *mirrorDir, ref.sidePath())
	if err != nil {
		return err
	}
	l, err := ref.openExisting(ctx, list.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	sh, err := collectShown(ctx, l, mdir, u)
	if err != nil {
		return listErr(err)
	}
	if sh.Filtered, err = showFiltered(ctx, l, *config, sh); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, sh)
	}
	return printShown(stdout, sh)
}

// findLine returns the line of u in l, zero if none: from a database's
// index of URLs (pglist), else by reading the list.
func findLine(ctx context.Context, l crawl.Store, u string) (list.Entry, error) {
	if pg, ok := l.(*pglist.Store); ok {
		e, _, err := pg.Line(ctx, u)
		return e, err
	}
	var line list.Entry
	errFound := errors.New("found")
	err := l.Scan(ctx, func(e *list.Entry) error {
		if e.URL == u {
			line = e.Clone()
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return list.Entry{}, err
	}
	return line, nil
}

func collectShown(ctx context.Context, l crawl.Store, mdir, u string) (*Shown, error) {
	sh := &Shown{URL: u, Same: []string{}, Due: []ShownDue{}}
	line, err := findLine(ctx, l, u)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	if line.URL != "" {
		sh.Listed = true
		sl := &ShownLine{File: line.File, Spider: line.Spider, Level: line.Level, State: line.State.String(), Hinted: line.Hinted()}
		if !line.Modified.IsZero() {
			t := line.Modified
			sl.Modified = &t
		}
		if !line.Due.IsZero() {
			t := line.Due
			sl.Due = &t
		}
		sh.Line = sl
		if line.File != "" && mdir != "" {
			c := &ShownCopy{Path: filepath.Join(mdir, filepath.FromSlash(line.File))}
			if fi, err := os.Stat(c.Path); err == nil {
				t := fi.ModTime().UTC()
				c.Exists, c.Size, c.MTime = true, fi.Size(), &t
			}
			sh.Copy = c
		}
		sts, err := l.Statuses(ctx)
		if err != nil {
			return nil, err
		}
		for _, sp := range sts {
			var cs crawl.Status
			if json.Unmarshal(sp.Extra, &cs) != nil || cs.WindowSec <= 0 {
				continue
			}
			p := cs.ClaimProfile()
			d := ShownDue{Spider: sp.Spider, Due: claim.Due(p, &line, now)}
			if !d.Due {
				d.At = claim.NextDue(p, &line)
				d.Never = d.At.IsZero() && line.Spider == ""
			}
			sh.Due = append(sh.Due, d)
		}
	}
	store := historyOf(l, 30*time.Second)
	recs, err := store.Get([]string{u})
	if err != nil {
		return nil, err
	}
	if r, ok := recs[u]; ok {
		sh.History = &r
		if same, err := store.Same(r.Checksum, u, 20); err != nil {
			return nil, err
		} else if same != nil {
			sh.Same = same
		}
	}
	return sh, nil
}

func printShown(w io.Writer, sh *Shown) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, f string, a ...any) { fmt.Fprintf(tw, "%s\t"+f+"\n", append([]any{k}, a...)...) }
	row("url", "%s", sh.URL)
	printShownLine(row, sh)
	if sh.Filtered != "" {
		row("filtered", "%s", sh.Filtered)
	}
	if h := sh.History; h != nil {
		printHistory(row, h)
	} else if sh.Listed {
		row("history", "never fetched")
	}
	if len(sh.Same) > 0 {
		row("same body as", "%s", strings.Join(sh.Same, ", "))
	}
	for _, d := range sh.Due {
		switch {
		case d.Due:
			row("due for "+d.Spider, "now")
		case d.Never:
			row("due for "+d.Spider, "never (deeper than its level limit)")
		case d.At.IsZero():
			row("due for "+d.Spider, "not while claimed")
		default:
			row("due for "+d.Spider, "%s", stamp(d.At))
		}
	}
	return tw.Flush()
}

// rowFunc writes one row of spider show: a label, then a formatted value.
type rowFunc func(label, format string, a ...any)

// stamp writes a time for spider show, with how long ago it is.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339) + " (" + ago(t) + ")"
}

// printShownLine writes the URL's line in the list and its copy.
func printShownLine(row rowFunc, sh *Shown) {
	if !sh.Listed && sh.Filtered != "" {
		row("list", "no line for this URL: links to it are not followed (filtered, below)")
	} else if !sh.Listed {
		row("list", "no line for this URL (not found by any spider yet, or out of scope)")
	} else {
		ln := sh.Line
		claimed := "unclaimed"
		if ln.Spider != "" {
			claimed = "claimed by " + ln.Spider
		}
		row("state", "%s, level %d, %s", ln.State, ln.Level, claimed)
		if ln.Modified != nil {
			what := "copy taken (or confirmed unchanged)"
			switch ln.State {
			case "archived":
				what = "last seen gone"
			case "error":
				if ln.File == "" {
					what = "last failed"
				}
			}
			row("last_modification", "%s: %s", stamp(*ln.Modified), what)
		}
		if ln.Due != nil {
			what := "its change model expects a change then (each profile's revisit bounds apply: see due below)"
			switch {
			case ln.Modified == nil:
				what = "found then: due for its first visit"
			case ln.Hinted:
				what = "a hub or a sitemap announced a change since the copy: due at once"
			}
			row("due", "%s: %s", stamp(*ln.Due), what)
		}
	}
	if sh.Copy != nil {
		if sh.Copy.Exists {
			row("copy", "%s (%d bytes, written %s)", sh.Copy.Path, sh.Copy.Size, stamp(*sh.Copy.MTime))
		} else {
			row("copy", "%s: MISSING from the mirror (spider list check --mirror reports it)", sh.Copy.Path)
		}
	} else if sh.Line != nil {
		row("copy", "none yet")
	}
}

// printHistory writes the URL's fetch history.
func printHistory(row rowFunc, h *meta.Record) {
	if h.Reason != "" {
		row("why", "%s", h.Reason)
	}
	status := "no answer"
	if h.Status != 0 {
		status = fmt.Sprint(h.Status)
	}
	row("last attempt", "%s, status %s", stamp(h.LastAttempt), status)
	if h.Error != "" {
		row("error", "%s", h.Error)
	}
	row("attempts", "%d in all; %d failed in a row; %d answered 404 since the last success; %d unchanged since the last change",
		h.Attempts, h.Fails, h.NotFound, h.Unchanged)
	if h.NotFound > 0 && !h.NotFoundSince.IsZero() {
		row("first 404", "%s", stamp(h.NotFoundSince))
	}
	row("last ok", "%s", stamp(h.LastOK))
	row("last changed", "%s", stamp(h.LastChanged))
	if !h.RetryAt.IsZero() {
		row("retry after", "%s", stamp(h.RetryAt))
	}
	if h.RedirectTo != "" && h.Forwards {
		row("redirects to", "%s (the copy forwards to its copy)", h.RedirectTo)
	} else if h.RedirectTo != "" {
		row("redirects to", "%s", h.RedirectTo)
	}
	if h.ETag != "" || h.LastModified != "" {
		row("validators", "ETag %s, Last-Modified %s", orDash(h.ETag), orDash(h.LastModified))
	}
	if h.Checksum != "" {
		row("body", "%s, %d bytes, sha256 %s", orDash(h.MediaType), h.Size, h.Checksum)
	}
	if h.Listing > 0 {
		marks := "a change of the links of a shallower page that links it marks it too; "
		if h.ListingLevel == 0 {
			marks = "" // a start page: no page is shallower
		}
		row("listing", "its links changed at one of its latest visits (level %d): %s%d more visits that find its links unchanged end that", h.ListingLevel, marks, h.Listing)
	}
	if len(h.Held) > 0 {
		row("links held back", "%d at the last visit, past the per-host budget of new links per pass (max_new_per_host); offered again at the next visit, if not taken sooner", len(h.Held))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ago says how long ago (or in how long) t is, to the second.
func ago(t time.Time) string {
	d := time.Since(t).Round(time.Second)
	if d < 0 {
		return "in " + (-d).String()
	}
	return d.String() + " ago"
}
