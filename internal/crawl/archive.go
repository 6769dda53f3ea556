package crawl

import (
	"errors"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/list"
)

// archive marks in the mirror the copy of a page the site answered 404 or
// 410 for (the line en, found gone at now). The copy stays at its path, so
// links to it keep working, and an HTML copy gets a banner (rewrite.Banner)
// saying it was removed and when, written atomically; a later 2xx fetch
// writes the page afresh, without it. With Config.RemoveArchived the copy
// is removed instead (the line keeps its file name, now without a file).
// A page going from another state to archived is an "archived" event of
// the mirror's index. Failures are logged: the list records the state
// whatever happens here. The banner is a read-modify-write of the copy:
// should the page come back and another spider write it fresh in that very
// moment, the later write wins. The banner is written before the pass that
// records the line archived: a spider killed in between leaves a bannered
// copy on a line that is not archived. Either way the page's history shows
// a 404 since its last success (once stored), so its next 2xx (asked
// without validators) writes the copy afresh without it (mayBeBannered).
func (e *Engine) archive(en list.Entry, now time.Time) {
	if en.File == "" {
		return
	}
	ev := mirrorindex.Event{Time: now, Kind: mirrorindex.Archived, URL: en.URL, Host: hostOf(en.URL), File: en.File, Page: isHTMLFile(en.File)}
	if en.State == list.Archived {
		ev.Kind = "" // archived already: no news
	}
	if e.cfg.RemoveArchived {
		if err := e.mirror.Remove(en.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.warns.note(slog.LevelWarn, "archived copy not removed", en.URL, "file", en.File, "err", err)
			return
		}
		ev.File = ""
		e.index.note(ev)
		return
	}
	if isHTMLFile(en.File) {
		page, err := e.mirror.ReadFile(en.File)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			ev.File = ""
		case err != nil:
			e.warns.note(slog.LevelWarn, "archived copy not read", en.URL, "file", en.File, "err", err)
		case !rewrite.HasBanner(page):
			if err := e.mirror.Write(en.File, rewrite.Banner(page, en.URL, now)); err != nil {
				e.warns.note(slog.LevelWarn, "archive banner not written", en.URL, "file", en.File, "err", err)
			}
		}
	}
	e.index.note(ev)
}

// failedState is the state a failed fetch (or a copy that could not be
// written) leaves the line en in: an archived line stays archived, and its
// copy keeps its banner, until a 2xx brings the page back, since a timeout
// or a 500 is no evidence that it did; any other line says error. So the
// banner and the line never disagree.
func failedState(en list.Entry) list.State {
	if en.State == list.Archived {
		return list.Archived
	}
	return list.Error
}

// isHTMLFile reports whether a mirror file is a page, by the extension
// that mirror.Path gives pages.
func isHTMLFile(file string) bool {
	f := strings.ToLower(file)
	return strings.HasSuffix(f, ".html") || strings.HasSuffix(f, ".htm")
}
