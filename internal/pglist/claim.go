package pglist

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// maxRounds bounds the rounds of candidate queries a claim makes while
// its batch is short: when the Picker vetoes many candidates (lines of
// hosts in back-off), or when other spiders' passes are claiming the same
// most urgent lines at once (each skips the lines another holds). Each
// round asks for 8 times as many candidates as the last.
const maxRounds = 3

// cand is a candidate line: its entry and its place in the list.
type cand struct {
	id int64
	e  list.Entry
}

// claim claims the batch: the Picker's Max most urgent due lines, by its
// Due and Less, among the candidates the profile's queries select. A
// round's candidates that another pass holds are skipped; while the batch
// is short and the queries may hold more lines, the next round looks
// further, past the candidates already tried.
func (p *pass) claim(ctx context.Context) error {
	if p.pick == nil || p.pick.Max() <= 0 {
		return nil
	}
	max := p.pick.Max()
	levels, err := p.levels(ctx)
	if err != nil {
		return err
	}
	sp := claimSpec{p: p.pick.Profile(), now: p.c.Now, backlog: p.pick.Backlogged(), early: p.pick.RefreshesEarly(), unpaced: p.pick.RefreshesUnpaced()}
	var first []candQuery
	if pr, ok := p.pick.(Preferring); ok {
		if urls := pr.Preferred(); len(urls) > 0 {
			first = []candQuery{preferredQuery(urls)}
		}
	}
	tried := map[int64]bool{}
	var got []cand
	for round, k := 0, max+8; round < maxRounds && len(got) < max; round, k = round+1, k*8 {
		due, more, err := p.candidates(ctx, append(first, candQueries(sp, levels, k)...), k, max-len(got), tried)
		if err != nil {
			return err
		}
		p.c.Stats.Due += len(due)
		took, err := p.take(ctx, due, max-len(got))
		if err != nil {
			return err
		}
		got = append(got, took...)
		if !more {
			break
		}
	}
	if len(got) < max {
		if err := p.showNext(ctx, sp, levels); err != nil {
			return err
		}
	}
	return p.claimLines(ctx, got)
}

// nextRows is how many of the lines falling due soonest each class's
// query shows the Picker when a batch is short.
const nextRows = 8

// showNext shows the Picker the lines that fall due soonest, when the
// batch is short. The file store's Picker sees every line, so its Next
// tells an idle spider how long it may sleep (internal/crawl), but the
// candidate queries select only lines due already: without this an idle
// spider on PostgreSQL slept its poll interval (a quarter of its window)
// past the time its next line fell due. The same queries at a clock one
// longest (or stale bound) later select every line that falls due by
// then, each class in the order its lines fall due (refreshes per level
// by their stand-in time, first visits by level); the Picker's Due finds
// them not due yet and notes when they will be.
func (p *pass) showNext(ctx context.Context, sp claimSpec, levels []int) error {
	_, _, longest := sp.p.Intervals()
	sp.now = sp.now.Add(max(longest, sp.p.Stale))
	for _, q := range candQueries(sp, levels, nextRows) {
		rows, err := p.tx.Query(ctx, q.sql, q.args...)
		if err != nil {
			return err
		}
		var r row
		if _, err := pgx.ForEachRow(rows, r.dest(), func() error {
			p.pick.Due(r.entry())
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// Preferring is a Profiled picker that names lines it wants offered
// before any other: lines the spider fetched ahead of their claim
// (internal/crawl), whose outcome is in hand and which only a claim lets a
// pass record. They are offered as candidates first, whatever the
// profile's queries would select among the rest; the Picker's Due and Less
// decide, as for every candidate.
type Preferring interface {
	Preferred() []string
}

// preferredQuery selects the unclaimed lines of urls (the index of url),
// as a tier before all others.
func preferredQuery(urls []string) candQuery {
	return candQuery{"preferred", -1, `SELECT ` + candCols + ` FROM lines WHERE spider = '' AND url = ANY($1) ORDER BY id`, []any{urls}}
}

// levels returns the levels the list uses, in order.
func (p *pass) levels(ctx context.Context) ([]int, error) {
	rows, err := p.tx.Query(ctx, `SELECT level FROM levels ORDER BY level`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// candidates runs the queries tier by tier and returns the distinct lines
// the Picker finds due and not tried before, most urgent first; it marks
// them tried. It stops after a tier that brings the due lines to want. It
// reports more if a query of the last tier it ran returned k rows: that
// tier may hold more lines, more urgent than any of the next.
func (p *pass) candidates(ctx context.Context, qs []candQuery, k, want int, tried map[int64]bool) (due []cand, more bool, err error) {
	for i, q := range qs {
		rows, err := p.tx.Query(ctx, q.sql, q.args...)
		if err != nil {
			return nil, false, err
		}
		var r row
		n, err := pgx.ForEachRow(rows, r.dest(), func() error {
			if e := r.entry(); !tried[r.id] && p.pick.Due(e) {
				tried[r.id] = true
				due = append(due, cand{r.id, *e})
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		more = more || q.tier >= 0 && int(n.RowsAffected()) >= k
		if i+1 == len(qs) || qs[i+1].tier != q.tier {
			if len(due) >= want || more {
				break
			}
		}
	}
	slices.SortFunc(due, p.order)
	return due, more, nil
}

// order sorts candidates by the Picker's Less, ties by list order.
func (p *pass) order(a, b cand) int {
	switch {
	case p.pick.Less(&a.e, &b.e):
		return -1
	case p.pick.Less(&b.e, &a.e):
		return 1
	}
	return int(a.id - b.id)
}

// take locks up to max of the candidates, most urgent first, and returns
// them as they are now. A candidate another pass holds is skipped, not
// waited for; one that changed since the candidates were read is taken
// only if it is still due.
func (p *pass) take(ctx context.Context, due []cand, max int) ([]cand, error) {
	var got []cand
	for len(due) > 0 && len(got) < max {
		n := min(max-len(got), len(due))
		ids := make([]int64, n)
		for i := range n {
			ids[i] = due[i].id
		}
		due = due[n:]
		rows, err := p.tx.Query(ctx, `SELECT `+candCols+` FROM lines WHERE id = ANY($1) AND spider = ''
			ORDER BY id FOR UPDATE SKIP LOCKED`, ids)
		if err != nil {
			return nil, err
		}
		var r row
		_, err = pgx.ForEachRow(rows, r.dest(), func() error {
			if e := r.entry(); p.pick.Due(e) {
				got = append(got, cand{r.id, *e})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return got, nil
}

// claimLines claims the lines taken, most urgent first. Claimed lines are
// reported as they were just before the claim.
func (p *pass) claimLines(ctx context.Context, got []cand) error {
	if len(got) == 0 {
		return nil
	}
	slices.SortFunc(got, p.order)
	ids := make([]int64, len(got))
	for i, c := range got {
		ids[i] = c.id
		p.c.Claimed = append(p.c.Claimed, c.e)
	}
	_, err := p.tx.Exec(ctx, `UPDATE lines SET spider = $2, epoch = $3, state = CASE WHEN state = 1 THEN 2 ELSE state END
		WHERE id = ANY($1)`, ids, p.c.Spider, p.epoch)
	p.c.Stats.Claimed = len(got)
	return err
}

// row is a line as a query returns it (candCols).
type row struct {
	id            int64
	state         int16
	modified, due *time.Time
	e             list.Entry
}

// dest returns the destinations of candCols.
func (r *row) dest() []any {
	return []any{&r.id, &r.e.URL, &r.e.File, &r.e.Spider, &r.e.Level, &r.state, &r.modified, &r.due}
}

// entry completes r.e from the columns that need converting: NULL times
// are zero, times are UTC.
func (r *row) entry() *list.Entry {
	r.e.State = list.State(r.state)
	r.e.Modified, r.e.Due = timeOf(r.modified), timeOf(r.due)
	return &r.e
}

func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
