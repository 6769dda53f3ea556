package pglist

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// maxRounds bounds the rounds of candidate queries a claim makes when the
// Picker vetoes so many candidates (lines of hosts in back-off) that the
// batch is short: each round asks for 8 times as many.
const maxRounds = 3

// cand is a candidate line: its entry and its place in the list.
type cand struct {
	id int64
	e  list.Entry
}

// claim claims the batch: the Picker's Max most urgent due lines, by its
// Due and Less, among the candidates the profile's queries select.
func (p *pass) claim(ctx context.Context) error {
	if p.pick == nil || p.pick.Max() <= 0 {
		return nil
	}
	max := p.pick.Max()
	levels, err := p.levels(ctx)
	if err != nil {
		return err
	}
	sp := claimSpec{p: p.pick.Profile(), now: p.c.Now, backlog: p.pick.Backlogged(), early: p.pick.RefreshesEarly()}
	var first []candQuery
	if pr, ok := p.pick.(Preferring); ok {
		if urls := pr.Preferred(); len(urls) > 0 {
			first = []candQuery{preferredQuery(urls)}
		}
	}
	var due []cand
	for round, k := 0, max+8; round < maxRounds; round, k = round+1, k*8 {
		var full bool
		due, full, err = p.candidates(ctx, append(first, candQueries(sp, levels, k)...), k, max)
		if err != nil || len(due) >= max || !full {
			break
		}
	}
	if err != nil {
		return err
	}
	p.c.Stats.Due = len(due)
	return p.take(ctx, due, max)
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
// the Picker finds due, most urgent first. It stops after a tier that
// brings the due lines to max; it reports full if a query of the last
// tier it ran returned k rows while the due lines fell short of max, so
// that more lines of that tier, more urgent than any of the next, may be
// due.
func (p *pass) candidates(ctx context.Context, qs []candQuery, k, max int) (due []cand, full bool, err error) {
	seen := map[int64]bool{}
	for i, q := range qs {
		rows, err := p.tx.Query(ctx, q.sql, q.args...)
		if err != nil {
			return nil, false, err
		}
		var r row
		n, err := pgx.ForEachRow(rows, r.dest(), func() error {
			if e := r.entry(); !seen[r.id] && p.pick.Due(e) {
				seen[r.id] = true
				due = append(due, cand{r.id, *e})
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		full = full || q.tier >= 0 && int(n.RowsAffected()) >= k
		if i+1 == len(qs) || qs[i+1].tier != q.tier {
			if len(due) >= max || full {
				break
			}
		}
	}
	slices.SortFunc(due, p.order)
	return due, full && len(due) < max, nil
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

// take claims up to max of the candidates, most urgent first. A candidate
// another pass holds is skipped, not waited for; one that changed since
// the candidates were read is claimed only if it is still due. Claimed
// lines are reported as they were just before the claim.
func (p *pass) take(ctx context.Context, due []cand, max int) error {
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
			return err
		}
		var r row
		_, err = pgx.ForEachRow(rows, r.dest(), func() error {
			if e := r.entry(); p.pick.Due(e) {
				got = append(got, cand{r.id, *e})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
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
