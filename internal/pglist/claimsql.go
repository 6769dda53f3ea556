package pglist

import (
	"time"

	"github.com/spider-mirror/spider/internal/claim"
)

// This file translates a claim profile into the queries that find the
// candidates of a claim: a pure function of the profile, the clock, the
// levels in use and the number of candidates wanted, so the translation can
// be read and tested as tables (claimsql_test.go) and checked against
// internal/claim on a real server (claim_test.go).

// candCols are the columns a candidate query returns, in scanEntry's order.
const candCols = `id, url, file, spider, level, state, modified, due`

// Classes of candidate queries, in claim's order of urgency.
const (
	qWaited    = "waited"    // never visited, and waiting longer than the stale bound
	qNew       = "new"       // never visited, or hinted
	qStale     = "stale"     // a copy older than the stale bound
	qPlain     = "plain"     // no change model: a window old
	qModelDue  = "model-due" // the model's due time has passed, and the copy is shortest old
	qModelAged = "model-age" // the copy is longest old, whatever the model says
)

// candQuery is one query for candidates: SQL with its arguments. It
// returns at most k rows. Its tier is its class's rank in claim's order
// (waited, new, stale, refresh): every line a tier finds due is more
// urgent than any of the next tier.
type candQuery struct {
	class string
	tier  int
	sql   string
	args  []any
}

// claimSpec is a claim's policy as data: what a claim.Picker decides with.
type claimSpec struct {
	p       claim.Profile
	now     time.Time
	backlog bool
	early   bool // refresh from claim.EarlyOdds of the interval (claim.Picker.Early)
	unpaced bool // as early, and a page by its drawn wait at the latest (claim.Picker.Unpaced, claim.UnpacedWait)
}

// candQueries returns, in tier order, the queries for the k first due
// lines of each class, given the levels the list uses. The queries select
// unclaimed lines with exactly claim's rule for being due (claim.Due). For
// the waited, new and stale classes "first" is claim's own order, each
// query scanning an index in that order. A refresh's urgency in claim is its
// odds (its copy's age over the model's mean time between changes), which
// depends on the clock and so cannot be indexed; its stand-in is the time the
// line became due by its kind: a window after its copy without a model,
// its model's due time (clamped below by shortest), a longest after its
// copy. Each refresh query scans its index per level (the level limit and
// the backlog make the refreshable levels a set) and keeps the k earliest
// in all; the caller orders the union with the Picker's Less.
func candQueries(sp claimSpec, levels []int, k int) []candQuery {
	now := sp.now.UTC()
	var qs []candQuery
	staleBy := now.Add(-sp.p.Stale)
	if sp.p.Stale > 0 {
		qs = append(qs, candQuery{qWaited, 0, `SELECT ` + candCols + ` FROM lines
			WHERE spider = '' AND modified IS NULL AND due <= $1
			ORDER BY due, id LIMIT $2`, []any{staleBy, k}})
	}
	levelCut, args := "", []any{now, k} // a hinted copy is due at once (unless taken after now)
	if sp.p.MaxLevel >= 0 {
		levelCut, args = ` AND level <= $3`, append(args, sp.p.MaxLevel)
	}
	qs = append(qs, candQuery{qNew, 1, `SELECT ` + candCols + ` FROM lines
		WHERE spider = '' AND (modified IS NULL OR due <= modified) AND (modified IS NULL OR modified <= $1)` + levelCut + `
		ORDER BY level, coalesce(modified, due) NULLS FIRST, id LIMIT $2`, args})
	lv := refreshLevels(sp, levels)
	only := ""
	if len(lv) > 0 && lv[0] == 0 {
		// A start page (an HTML page at level 0) due at its interval is
		// as urgent as a line never visited (claim's order): its
		// refreshes are of the new tier. The images and style sheets at
		// its level are refreshes like those of the other levels, never
		// while a first mirror is under way (refreshLevels keeps only
		// level 0 then).
		// Its interval has no floor: the crawl may poll it sooner than
		// shortest (claim's floor).
		qs = append(qs, refreshQueries(sp, []int{0}, k, 1, startPage, 0)...)
		if sp.backlog {
			lv = lv[1:]
		} else {
			only = `NOT ` + startPage
		}
	}
	if sp.p.Stale > 0 {
		// Copies (a line never visited that waited as long is of the
		// waited tier, few once that tier did not fill the batch). For a
		// copy coalesce(modified, due) is modified; the query spells it
		// as lines_since indexes it, so that the index serves it.
		qs = append(qs, candQuery{qStale, 2, `SELECT ` + candCols + ` FROM lines
			WHERE spider = '' AND coalesce(modified, due) <= $1 AND modified IS NOT NULL
			ORDER BY coalesce(modified, due), id LIMIT $2`, []any{staleBy, k}})
	}
	if len(lv) == 0 {
		return qs
	}
	shortest, _, _ := sp.p.Intervals()
	return append(qs, refreshQueries(sp, lv, k, 3, only, shortest)...)
}

// refreshQueries returns the queries of tier for the refreshes due at the
// levels lv, of the lines only (SQL; "": all) selects, whose model's
// interval is at least floor (claim's floor: shortest, or none for a
// start page).
func refreshQueries(sp claimSpec, lv []int, k, tier int, only string, floor time.Duration) []candQuery {
	shortest, window, longest := sp.p.Intervals()
	now := sp.now.UTC()
	if only != "" {
		only = ` AND ` + only
	}
	perLevel := func(where, order string) string {
		return `SELECT c.* FROM unnest($1::integer[]) AS lv(level) CROSS JOIN LATERAL (
			SELECT ` + candCols + ` FROM lines WHERE spider = '' AND level = lv.level AND ` + where + only + `
			ORDER BY ` + order + `, id LIMIT $2) AS c
			ORDER BY c.` + order + `, c.id LIMIT $2`
	}
	var qs []candQuery
	switch {
	case sp.backlog:
	case sp.unpaced:
		qs = unpacedRefresh(perLevel, lv, k, now, floor, shortest, window, longest)
	case sp.early:
		qs = earlyRefresh(perLevel, lv, k, now, floor, shortest, window, longest)
	}
	if qs == nil {
		qs = []candQuery{
			{qPlain, 2, perLevel(`due IS NULL AND modified IS NOT NULL AND modified <= $3`, `modified`),
				[]any{lv, k, now.Add(-window)}},
			{qModelDue, 2, perLevel(`due > modified AND due <= $3 AND modified <= $4`, `due`),
				[]any{lv, k, now, now.Add(-floor)}},
			{qModelAged, 2, perLevel(`due > modified AND due > $3 AND modified <= $4`, `modified`),
				[]any{lv, k, now, now.Add(-longest)}},
		}
	}
	for i := range qs {
		qs[i].tier = tier
	}
	return qs
}

// earlyRefresh returns the refresh queries of a picker that refreshes
// early (claim.Picker.Early, never while a first mirror is under way): a
// copy is due from claim.EarlyOdds of its interval on. The interval of a
// model is its span (its due time less its copy's time) clamped to
// [shortest, longest], so the two model queries split on the span
// instead of on the due time: within longest, the copy's time plus the
// odds of the span (computed per row) must have passed, on the index of
// due times; past longest, the copy must be the odds of longest old, on
// the index of copy times. Each index scan stops at its k-th row (in the
// order of the index, most rows pass the per-row test) or at its bound: a
// copy floor's odds old at least (floor: claim's, shortest or none for a
// start page), with a span within longest, has a due time at most longest
// after that. A span under shortest (a start page's) is shortened to the
// odds of shortest at most, not at all if it is under that (claim's
// earlyWait).
func earlyRefresh(perLevel func(where, order string) string, lv []int, k int, now time.Time, floor, shortest, window, longest time.Duration) []candQuery {
	return []candQuery{
		{qPlain, 2, perLevel(`due IS NULL AND modified IS NOT NULL AND modified <= $3`, `modified`),
			[]any{lv, k, now.Add(-odds(window))}},
		{qModelDue, 2, perLevel(`due > modified AND due <= $7 AND due <= modified + $6::interval AND `+spanOdds(`$6`, `$9`, `$5`, `$8`)+` <= $3 AND modified <= $4`, `due`),
			[]any{lv, k, now, now.Add(-odds(floor)), claim.EarlyOdds, longest, now.Add(-odds(floor) + longest), odds(shortest), floor}},
		{qModelAged, 2, perLevel(`due > modified AND due > modified + $4::interval AND modified <= $3`, `modified`),
			[]any{lv, k, now.Add(-odds(longest)), longest}},
	}
}

// pageFile is true of a line whose copy is an HTML page, or whose file
// is not known (claim's otherFile, negated): its file ends in .html or
// .htm, in any case.
const pageFile = `(file = '' OR lower(file) LIKE '%.html' OR lower(file) LIKE '%.htm')`

// startPage is true of a start page, where a site announces (claim's
// startPage): an HTML page at level 0, not the images and style sheets
// that share its level.
const startPage = `(level = 0 AND ` + pageFile + `)`

// unpacedRefresh returns the refresh queries of a picker with no delay
// (claim.Picker.Unpaced, never while a first mirror is under way): a copy
// is due from claim.EarlyOdds of its interval on, or, if it is a page
// (pageFile), once it has waited its claim.UnpacedWait (drawn, between
// half of shortest and shortest) if that comes first; any other copy is
// due as earlyRefresh says. A page younger than half of shortest can be
// due only if it is a start page polled sooner, at its span under half of
// shortest (claim's earlyWait), so its due time has passed: computed per
// row on the index of due times. An older page is due by its draw or by
// the odds of its span, computed per row on the index of copy times, the
// oldest first.
func unpacedRefresh(perLevel func(where, order string) string, lv []int, k int, now time.Time, floor, shortest, window, longest time.Duration) []candQuery {
	all := shortest.Microseconds()
	half, rest := all/2, all-all/2
	youngBy := now.Add(-time.Duration(half) * time.Microsecond)
	plain, oddsShortest := odds(window), odds(shortest)
	pages := func(where, order string) string { return perLevel(where+` AND `+pageFile, order) }
	others := func(where, order string) string { return perLevel(where+` AND NOT `+pageFile, order) }
	return append([]candQuery{
		{qPlain, 2, pages(`due IS NULL AND modified IS NOT NULL AND modified <= $3 AND (modified <= $4 OR `+drawnWait(`$5`, `$6`, `$7`)+`)`, `modified`),
			[]any{lv, k, now.Add(-min(plain, time.Duration(half)*time.Microsecond)), now.Add(-plain), now, half, rest}},
		{qModelDue, 2, pages(`due > modified AND due <= $3 AND modified > $4 AND `+spanOdds(`$5`, `$6`, `$7`, `$8`)+` <= $3`, `due`),
			[]any{lv, k, now, youngBy, longest, floor, claim.EarlyOdds, oddsShortest}},
		{qModelAged, 2, pages(`due > modified AND modified <= $3 AND (modified <= $10 OR `+spanOdds(`$7`, `$8`, `$9`, `$11`)+` <= $4 OR `+drawnWait(`$4`, `$5`, `$6`)+`)`, `modified`),
			[]any{lv, k, youngBy, now, half, rest, longest, floor, claim.EarlyOdds, now.Add(-shortest), oddsShortest}},
	}, earlyRefresh(others, lv, k, now, floor, shortest, window, longest)...)
}

// drawnWait is true of a copy that has waited its claim.UnpacedWait at
// the clock now: half and rest (microseconds) are half of shortest and
// the rest of it, the draw the first 16 bits of the MD5 of the URL, a
// space and the copy's time in Unix seconds.
func drawnWait(now, half, rest string) string {
	return `modified + (` + half + `::bigint + ('x' || left(md5(url || ' ' || floor(extract(epoch from modified))::bigint), 4))::bit(16)::int::bigint * ` +
		rest + `::bigint / 65536) * interval '1 microsecond' <= ` + now
}

// odds is claim.EarlyOdds of d: how far into an interval of d a copy is
// due early.
func odds(d time.Duration) time.Duration { return time.Duration(float64(d) * claim.EarlyOdds) }

// spanOdds is the time a copy with a model is due early: its time plus
// odds of its span clamped to [floor, longest], or plus that clamped span
// if it is under least (the odds of shortest: claim's earlyWait).
func spanOdds(longest, floor, odds, least string) string {
	span := `greatest(least(due - modified, ` + longest + `::interval), ` + floor + `::interval)`
	return `modified + least(` + span + `, greatest(` + span + ` * ` + odds + `::float8, ` + least + `::interval))`
}

// refreshLevels returns the levels whose copies may be refreshed: those in
// use within the profile's level limit, only 0 while a first mirror is
// under way (claim.Picker.Backlog).
func refreshLevels(sp claimSpec, levels []int) []int {
	var lv []int
	for _, l := range levels {
		switch {
		case sp.p.MaxLevel >= 0 && l > sp.p.MaxLevel:
		case sp.backlog && l > 0:
		default:
			lv = append(lv, l)
		}
	}
	return lv
}
