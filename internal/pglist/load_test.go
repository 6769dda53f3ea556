package pglist

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/list"
)

// load puts entries straight into the store's tables with COPY, as they
// are (claims included), and refreshes the planner's statistics: the
// tests' and benchmarks' way to a list of any shape and size.
func load(t testing.TB, s *Store, n int, entry func(i int) list.Entry) {
	t.Helper()
	ctx := context.Background()
	levels := map[int]bool{}
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if n == 0 {
			return nil, nil
		}
		n--
		e := entry(n)
		levels[e.Level] = true
		return []any{e.URL, e.File, e.Spider, e.Level, int16(e.State), nullTime(e.Modified), nullTime(e.Due)}, nil
	})
	rows, err := s.pool.CopyFrom(ctx, pgx.Identifier{"lines"}, []string{"url", "file", "spider", "level", "state", "modified", "due"}, src)
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	for l := range levels {
		if _, err := s.pool.Exec(ctx, `INSERT INTO levels VALUES ($1) ON CONFLICT DO NOTHING`, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, `UPDATE counts SET lines = lines + $1`, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE lines`); err != nil {
		t.Fatal(err)
	}
}

// randomEntry returns an unclaimed line of any kind claim knows, at a
// time around now: never visited (found recently or long ago, or at an
// unknown time), with a copy and no model, with a model due in the past
// or the future, or hinted; at levels 0 to 7.
// randomFile returns a copy's file: a page (any case of .html or .htm),
// or another file, which a spider with no delay refreshes apart
// (claim.Picker.Unpaced).
func randomFile(r *rand.Rand) string {
	return [...]string{"h/a.html", "h/b.HTM", "h/c.htm", "h/logo.png", "h/s.css", "h/doc.html.pdf", "h/f"}[r.IntN(7)]
}

func randomEntry(r *rand.Rand, now time.Time, url string) list.Entry {
	ago := func(max time.Duration) time.Time {
		return now.Add(-time.Duration(r.Int64N(int64(max)))).Truncate(time.Second)
	}
	e := list.Entry{URL: url, Level: r.IntN(8), State: list.Found}
	switch c := r.IntN(6); c {
	case 0:
		e.Due = ago(40 * 24 * time.Hour)
	case 1:
		// never visited, found before the list recorded when
	case 2:
		e.State, e.File, e.Modified = list.Downloaded, randomFile(r), ago(40*24*time.Hour)
	case 3, 4:
		// Spans up to 20 days, and (case 4) under two hours for a copy
		// of the last four: around the profiles' shortest, which a
		// start page's may be under.
		span, copied := 20*24*time.Hour, 40*24*time.Hour
		if c == 4 {
			span, copied = 2*time.Hour, 4*time.Hour
		}
		e.State, e.File, e.Modified = list.Downloaded, randomFile(r), ago(copied)
		e.Due = e.Modified.Add(time.Duration(1 + r.Int64N(int64(span)))).Truncate(time.Second)
		if !e.Due.After(e.Modified) {
			e.Due = e.Modified.Add(time.Second)
		}
	case 5:
		e.State, e.File, e.Modified = list.Error, randomFile(r), ago(40*24*time.Hour)
		e.Due = e.Modified
	}
	return e
}
