package pglist

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// countCap bounds the counts a pass makes of lines never visited
// (CycleStats.Unvisited): the crawl needs to know whether there are any,
// and a user how many up to a point; counting millions at every pass
// would cost more than the pass.
const countCap = 1000

// pass is one attempt at a Cycle, inside its transaction.
type pass struct {
	tx    pgx.Tx
	c     *list.Cycle
	pick  Profiled
	epoch int64     // the spider's session's (0 for a pass of no spider)
	ns    int64     // the high half of the spiders' advisory lock keys
	now   time.Time // the pass's clock, UTC, whole seconds

	inserted map[string]bool // URLs this pass appended
}

// run does the steps of a pass in the order of the file store's (list's
// pass.go): appends and level changes, results, takebacks, the lines
// held that are hinted, the claim, the counts.
func (p *pass) run(ctx context.Context) error {
	steps := []struct {
		name string
		f    func(context.Context) error
	}{
		{"append", p.add}, {"record", p.record}, {"take back", p.takeBack},
		{"hinted claims", p.hintedClaims}, {"claim", p.claim}, {"count", p.count},
	}
	for _, s := range steps {
		if err := s.f(ctx); err != nil {
			if retryable(err) {
				return err
			}
			return fmt.Errorf("pglist: %s: %w", s.name, err)
		}
	}
	return nil
}

// adds returns the pass's Adds as the file store reads them: of several
// Adds of one URL the shallowest counts, the first of equals, with the
// latest of their hints; in the order of the Adds that count.
func adds(c *list.Cycle) (urls []string, lv []int32, hints []*time.Time) {
	type add struct {
		at    int
		level int
		hint  time.Time
	}
	m := make(map[string]*add, len(c.Add))
	for i, a := range c.Add {
		d := m[a.URL]
		if d == nil {
			d = &add{at: i, level: a.Level}
			m[a.URL] = d
		} else if a.Level < d.level {
			d.at, d.level = i, a.Level
		}
		if a.Hint.After(d.hint) {
			d.hint = a.Hint
		}
	}
	order := make([]int, 0, len(m))
	for _, d := range m {
		order = append(order, d.at)
	}
	slices.Sort(order)
	for _, i := range order {
		d := m[c.Add[i].URL]
		urls, lv, hints = append(urls, c.Add[i].URL), append(lv, int32(d.level)), append(hints, hintTime(d.hint))
	}
	return urls, lv, hints
}

// hintTime maps a hint to a timestamptz, NULL if none. Lines' times are
// whole seconds, hints are not: a hint is rounded up to the microseconds
// the server keeps, so it is after a line's time exactly when the hint
// itself is (as list's hint compares them).
func hintTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	if r := u.Sub(u.Truncate(time.Microsecond)); r > 0 {
		u = u.Add(time.Microsecond - r)
	}
	return &u
}

// add appends the URLs no line holds, with a line due now (when found),
// and lowers the level of, or hints, the lines that hold the others.
func (p *pass) add(ctx context.Context) error {
	p.inserted = map[string]bool{}
	if len(p.c.Add) == 0 {
		return nil
	}
	urls, lv, hints := adds(p.c)
	// Levels first, in order: every pass takes the locks it may wait for
	// in one order, levels before lines.
	distinct := slices.Clone(lv)
	slices.Sort(distinct)
	if _, err := p.tx.Exec(ctx, `INSERT INTO levels SELECT l FROM unnest($1::integer[]) AS l
		WHERE NOT EXISTS (SELECT 1 FROM levels WHERE level = l) ON CONFLICT DO NOTHING`, slices.Compact(distinct)); err != nil {
		return err
	}
	// The new lines take their ids (the list's order) in the order of the
	// Adds, but are inserted in the order of their URLs: passes appending
	// the same URLs then wait for each other in one order, never in a
	// cycle.
	rows, err := p.tx.Query(ctx, `WITH ids AS (
			SELECT u, l, nextval(pg_get_serial_sequence('lines', 'id')) AS id
			FROM (SELECT * FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS a(u, l, o) ORDER BY o) AS a)
		INSERT INTO lines (id, url, level, state, due) OVERRIDING SYSTEM VALUE
		SELECT id, u, l, 1, $3 FROM ids ORDER BY u
		ON CONFLICT (url) DO NOTHING RETURNING url`, urls, lv, p.now)
	if err != nil {
		return err
	}
	ins, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, u := range ins {
		p.inserted[u] = true
	}
	p.c.Stats.Added = len(ins)
	// A line is hinted (its due becomes its copy's time) if it has a copy
	// older than the hint and is not hinted already (list's hint).
	rows, err = p.tx.Query(ctx, `WITH a AS (SELECT * FROM unnest($1::text[], $2::integer[], $3::timestamptz[]) AS a(url, level, hint)),
		old AS (SELECT l.id, a.level < l.level AS lower, a.level,
				a.hint IS NOT NULL AND l.modified IS NOT NULL AND a.hint > l.modified
					AND NOT coalesce(l.due <= l.modified, false) AS hinted
			FROM lines l JOIN a ON l.url = a.url
			WHERE a.level < l.level OR a.hint > l.modified AND NOT coalesce(l.due <= l.modified, false)
			ORDER BY l.id FOR UPDATE OF l)
		UPDATE lines l SET level = CASE WHEN old.lower THEN old.level ELSE l.level END,
			due = CASE WHEN old.hinted THEN l.modified ELSE l.due END
		FROM old WHERE l.id = old.id RETURNING old.lower, old.hinted`, urls, lv, hints)
	if err != nil {
		return err
	}
	var lower, hinted bool
	_, err = pgx.ForEachRow(rows, []any{&lower, &hinted}, func() error {
		if lower {
			p.c.Stats.Lowered++
		}
		if hinted {
			p.c.Stats.Hinted++
		}
		return nil
	})
	return err
}

// record applies the results to the lines the spider still holds in its
// current session (the epoch: see the package doc); the others are
// dropped. Of several results of one URL the last counts.
func (p *pass) record(ctx context.Context) error {
	if len(p.c.Results) == 0 {
		return nil
	}
	last := make(map[string]int, len(p.c.Results))
	for i, r := range p.c.Results {
		last[r.URL] = i
	}
	var urls, files []string
	var states []int16
	var mods, dues []*time.Time
	var forHint []bool
	for i, r := range p.c.Results {
		if last[r.URL] != i {
			continue
		}
		urls, states, files = append(urls, r.URL), append(states, int16(r.State)), append(files, r.File)
		forHint = append(forHint, r.ForHint)
		mods, dues = append(mods, nullTime(r.Modified)), append(dues, nullTime(r.Due))
	}
	// Planned for the values of each of its first executions, as
	// PostgreSQL plans a prepared statement at first, this statement
	// joins the whole list (a pass of a new process took three times as
	// long); the generic plan looks lines up by their URL and id.
	if _, err := p.tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		return err
	}
	rows, err := p.tx.Query(ctx, `WITH r AS (SELECT * FROM unnest($1::text[], $2::smallint[], $3::text[], $4::timestamptz[], $5::timestamptz[], $8::boolean[])
			AS r(url, state, file, modified, due, for_hint)),
		held AS (SELECT l.id FROM lines l JOIN r ON l.url = r.url WHERE l.spider = $6 AND l.epoch = $7
			ORDER BY l.id FOR UPDATE OF l),
		upd AS (UPDATE lines l SET spider = '', epoch = 0,
				state = CASE WHEN r.state <> 0 THEN r.state WHEN l.state = 2 THEN 1 ELSE l.state END,
				file = CASE WHEN r.state <> 0 AND r.file <> '' THEN r.file ELSE l.file END,
				modified = CASE WHEN r.state <> 0 AND r.modified IS NOT NULL THEN r.modified ELSE l.modified END,
				due = CASE WHEN r.state = 0 OR r.modified IS NULL THEN l.due
					WHEN l.due <= l.modified AND NOT r.for_hint THEN r.modified -- hinted meanwhile: list.Result.ForHint
					ELSE r.due END
			FROM r, held WHERE l.id = held.id AND l.url = r.url AND l.spider = $6 AND l.epoch = $7 RETURNING l.url)
		SELECT l.url, EXISTS (SELECT 1 FROM upd WHERE upd.url = l.url) FROM lines l WHERE l.url = ANY($1)`,
		urls, states, files, mods, dues, p.c.Spider, p.epoch, forHint)
	if err != nil {
		return err
	}
	var u string
	var done bool
	_, err = pgx.ForEachRow(rows, []any{&u, &done}, func() error {
		switch {
		case done:
			p.c.Stats.Recorded++
		case !p.inserted[u]:
			p.c.Stats.Dropped++
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = p.tx.Exec(ctx, `SET LOCAL plan_cache_mode = auto`) // the claims are planned as usual
	return err
}

// takeBack returns to the pool the claims of spiders whose session is
// gone or whose heartbeat is older than their lease, and the spider's own
// claims of an earlier session (or all of them, with ReleaseOwn). Lines
// another pass is changing at the same moment are left to it.
func (p *pass) takeBack(ctx context.Context) error {
	tag, err := p.tx.Exec(ctx, `WITH live AS (
			SELECT s.spider FROM spiders s WHERE s.num IN (`+liveLocks4+`) AND (s.heartbeat IS NULL OR coalesce(nullif(s.lease_s, 0), $5) <= 0
				OR s.heartbeat >= $6::timestamptz - make_interval(secs => coalesce(nullif(s.lease_s, 0), $5))))
		UPDATE lines SET spider = '', epoch = 0, state = CASE WHEN state = 2 THEN 1 ELSE state END
		WHERE id IN (SELECT id FROM lines WHERE spider <> '' AND (
				spider = $1 AND ($2 OR epoch <> $3)
				OR spider <> $1 AND spider NOT IN (SELECT spider FROM live))
			ORDER BY id FOR UPDATE SKIP LOCKED)`,
		p.c.Spider, p.c.ReleaseOwn, p.epoch, p.ns, p.c.Lease.Seconds(), p.c.Now.UTC())
	if err != nil {
		return err
	}
	p.c.Stats.TakenBack = int(tag.RowsAffected())
	return nil
}

// hintedClaims lists the lines the spider holds in its session that are
// hinted (list.Cycle.HintedClaims), in list order.
func (p *pass) hintedClaims(ctx context.Context) error {
	rows, err := p.tx.Query(ctx, `SELECT url FROM lines WHERE spider = $1 AND epoch = $2 AND due <= modified ORDER BY id`,
		p.c.Spider, p.epoch)
	if err != nil {
		return err
	}
	p.c.HintedClaims, err = pgx.CollectRows(rows, pgx.RowTo[string])
	return err
}

// liveLocks4 is liveLocks with the schema's oid as $4.
var liveLocks4 = strings.Replace(liveLocks, "$1", "$4", 1)

// count fills in the counts of the pass's statistics.
func (p *pass) count(ctx context.Context) error {
	st := &p.c.Stats
	err := p.tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM (SELECT 1 FROM lines WHERE spider = '' AND modified IS NULL ORDER BY id LIMIT $2) AS u),
			(SELECT count(*) FROM lines WHERE spider <> '' AND spider <> $1 AND modified IS NULL)`,
		p.c.Spider, countCap).Scan(&st.Unvisited, &st.FirstElsewhere)
	if err != nil {
		return err
	}
	// Last: the one row every appending pass updates is locked for the
	// shortest time, and after every other lock the pass takes.
	var lines int64
	if st.Added > 0 {
		err = p.tx.QueryRow(ctx, `UPDATE counts SET lines = lines + $1 RETURNING lines`, st.Added).Scan(&lines)
	} else {
		err = p.tx.QueryRow(ctx, `SELECT lines FROM counts`).Scan(&lines)
	}
	st.Lines = int(lines)
	return err
}
