package crawl

import (
	"slices"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/htmlurl"
	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// transform returns the bytes written to the mirror at file for a fetched
// response, and the links it holds: a page with its links and CSS pointed
// into the mirror and its encoding declared in the file, found in the same
// pass over most pages (rewrite.Page); a style sheet with its url()s
// and @imports pointed into the mirror and its charset declared; anything
// else as served, without links. A page whose links cannot be read is
// still written; the error says why it has no links.
func (e *Engine) transform(file string, resp *fetch.Response) (body []byte, links []extract.Link, linksErr, err error) {
	switch {
	case isHTML(resp.MediaType):
		ct := resp.Header.Get("Content-Type")
		target := e.target(resp.URL, file)
		body, links, err = rewrite.Page(resp.Body, resp.URL, ct, target)
		if err != nil {
			return nil, nil, nil, err
		}
		if away := e.notFollowed(resp.URL, links); len(away) > 0 {
			body, links, err = rewrite.Page(resp.Body, resp.URL, ct, func(abs string, kind htmlurl.Kind) (string, bool) {
				if away[abs] {
					return abs, true
				}
				return target(abs, kind)
			})
		}
		return body, links, nil, err
	case resp.MediaType == "text/css":
		body, err := rewrite.CSS(resp.Body, resp.URL, e.target(resp.URL, file))
		if err != nil {
			return nil, nil, nil, err
		}
		links, linksErr = extract.CSS(resp.URL, resp.Body)
		return rewrite.CSSCharset(body, resp.Header.Get("Content-Type")), links, linksErr, nil
	}
	return resp.Body, nil, nil, nil
}

// notFollowed returns the links of the page from (its links as extracted)
// that the copy links online, not to a file of the mirror that would never
// be written: the links the page asks robots not to follow (rel="nofollow",
// its <meta name="robots">; follows) that the spider would mirror, whose
// files neither the mirror holds nor a link the page follows leads to
// (the same page without its session id): wget leaves them online too.
// Such a link stays online until the page changes and is written again,
// even if another page leads to its URL since. nil if there are none,
// which is most pages: the page is rewritten once.
func (e *Engine) notFollowed(from string, links []extract.Link) map[string]bool {
	if e.cfg.IgnoreRobots {
		return nil
	}
	fromIn := e.scope.has(from)
	var away map[string]bool
	var followed map[string]bool // files of the links the page follows
	for _, l := range links {
		if !l.Nofollow || isRequisite(l.Kind) {
			continue
		}
		file, ok := e.linkFile(l.URL, l.Kind, fromIn)
		if !ok {
			continue // linked online already
		}
		if followed == nil {
			followed = e.followedFiles(links, fromIn)
		}
		if followed[file] {
			continue
		}
		if fi, err := e.mirror.Stat(file); err == nil && fi.Mode().IsRegular() {
			continue
		}
		if away == nil {
			away = map[string]bool{}
		}
		away[l.URL] = true
	}
	return away
}

// followedFiles returns the files of the mirror that the links of a page
// (in scope if fromIn) that it does not ask robots not to follow lead to.
func (e *Engine) followedFiles(links []extract.Link, fromIn bool) map[string]bool {
	files := map[string]bool{}
	for _, l := range links {
		if l.Nofollow && !isRequisite(l.Kind) {
			continue
		}
		if file, ok := e.linkFile(l.URL, l.Kind, fromIn); ok {
			files[file] = true
		}
	}
	return files
}

// mirrors returns why the spider does not mirror the link u of kind found
// on a page (in scope if fromIn), "" if it does, by the same rules as
// follows (scope.go) minus the page's nofollow, the level limit and the
// per-pass budget: a link to a host in scope, or, with Scope.Requisites,
// a requisite (image, style sheet, script, font, frame) of an in-scope
// page on any host, so that a page looks in the mirror as it does online
// even when its site loads them from elsewhere (a CDN). Pages on other
// hosts are never followed, nor site machinery and links into a capped
// URL pattern (traps.go); of requisites, only beacons are left out.
// Links it mirrors are rewritten to their files; others stay absolute.
// decideLink asks, once for both.
func (e *Engine) mirrors(fromIn bool, u string, kind extract.Kind) string {
	ok, why := e.follow.rules.FollowIn(fromIn, e.scope.has(u), scope.Link{URL: u, Requisite: isRequisite(kind)})
	if !ok {
		return why
	}
	if !isRequisite(kind) {
		return e.follow.traps.judge(u) // site machinery, a capped URL pattern (traps.go)
	}
	return e.follow.traps.judgeRequisite(u)
}

// isRequisite reports whether a link of kind is something its page needs
// to display (fetched at the page's level, from any host), not a page.
func isRequisite(kind extract.Kind) bool {
	return kind == extract.Requisite || kind == extract.Style || kind == extract.Frame
}

// linkLevel is the level of a link of kind to u found on the page from
// at level: a page is one more link away from the start, but a requisite
// (an image, style sheet, script) or a frame shares its page's level, so
// that any spider that mirrors a page also mirrors what the page needs to
// display. A start page's are at level 1, as level 0 is for start URLs
// alone: the host of a level-0 line is followed (scope.go), and a start
// page's image on a CDN, or a video it embeds, must not make that host a
// site to mirror. A frame on the start page's own host is at level 0: a
// frameset's frames are the start pages.
func linkLevel(level int, kind extract.Kind, from, u string) int {
	switch {
	case kind == extract.Frame && level == 0 && hostOf(u) == hostOf(from):
		return 0
	case isRequisite(kind):
		return max(level, 1)
	}
	return min(level+1, list.MaxLevel)
}

// leads returns the files written beside a copy of u at file so that every
// name a link to u was given before it was fetched leads there
// (linkname.Leads): a page a browser would take for HTML leads on to a
// copy that is not a page (rewrite.Forward); any other name holds the
// copy itself, which is in the same directory, so its relative links hold.
// Most copies have none: their type is the one their links guessed.
func (e *Engine) leads(u, file string, body []byte) []mirror.File {
	var files []mirror.File
	for _, name := range linkname.Leads(e.cfg.Layout, u, file) {
		data := body
		if linkname.IsPageName(name) && !linkname.IsPageName(file) {
			data = rewrite.Forward(rewrite.Rel(name, file))
		}
		files = append(files, mirror.File{Rel: name, Data: data})
	}
	return files
}

// ownName reports whether the line's file is one its URL maps to under
// the layout, whatever its type: not a name of an earlier layout (mirror.Path
// says which changed), whose copy must be fetched whole to be written
// under its new name.
func (e *Engine) ownName(en list.Entry) bool {
	names := []string{"text/html", "text/css", ""}
	return slices.ContainsFunc(names, func(typ string) bool {
		p, err := e.cfg.Layout.Path(en.URL, typ)
		return err == nil && p == en.File
	})
}
