package crawl

import (
	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// Links held back. The per-host budget of links taken per pass
// (Config.MaxNewPerHost, scope.go) refuses a page's links past it, against
// URL spaces without end. Refused is not lost: the page's history
// (meta.Record.Held) keeps them, and every later visit of the page offers
// them again until the budget takes them. A visit that finds the page
// changed takes its links afresh (those the new copy no longer has are
// forgotten); one that finds it unchanged, a 304 or the same body, offers
// those held; one that fails keeps them for the next.
//
// Cost: nothing for a page that holds none back, and a 304 parses nothing
// either way: the pass that claimed the line read its record. In LIST.meta
// a held link takes its path and about five bytes (its kind, the JSON
// around it; the origin it shares with the page is left out) beside the
// record's 250 or so, up to Config.MaxLinks links a page, and only until
// it is taken.

// takeLinks queues the links of the page of o's line that are followed
// (o.adds), at most Config.MaxLinks of them, and keeps those the budget
// held back in the line's history, in place of those it held before.
func (e *Engine) takeLinks(o *outcome, links []extract.Link) {
	en := o.job.en
	var held []meta.Link
	for i, l := range links {
		if i >= e.cfg.MaxLinks {
			e.log.Warn("too many links, rest ignored", "url", en.URL, "kept", e.cfg.MaxLinks)
			break
		}
		switch ok, hold := e.follows(en, l); {
		case ok:
			o.adds = append(o.adds, list.Add{URL: l.URL, Level: linkLevel(en.Level, l.Kind)})
		case hold:
			held = append(held, meta.Link{URL: l.URL, Kind: uint8(l.Kind), Nofollow: l.Nofollow})
		}
	}
	if o.rec != nil {
		o.rec.Held = held
	}
}

// offerHeld offers the links that o's line held back again, on a visit
// that found the page unchanged.
func (e *Engine) offerHeld(o *outcome) {
	if o.rec == nil || len(o.rec.Held) == 0 {
		return
	}
	links := make([]extract.Link, len(o.rec.Held))
	for i, h := range o.rec.Held {
		links[i] = extract.Link{URL: h.URL, Kind: extract.Kind(h.Kind), Nofollow: h.Nofollow}
	}
	before := len(o.adds)
	e.takeLinks(o, links)
	e.log.Debug("links held back offered again", "url", o.job.en.URL, "taken", len(o.adds)-before, "still_held", len(o.rec.Held))
}
