package pglist

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// yielding yields es in order.
func yielding(es []list.Entry) func() (list.Entry, bool, error) {
	i := 0
	return func() (list.Entry, bool, error) {
		if i == len(es) {
			return list.Entry{}, false, nil
		}
		i++
		return es[i-1], true, nil
	}
}

// Import loads a whole list in order with every field but the claims,
// counts its lines and levels so that passes go on from it, and refuses a
// list that holds lines; a failing source or a URL given twice loads
// nothing.
func TestImport(t *testing.T) {
	dsn := testDSN(t)
	s := openTest(t, dsn, testSchema(t, dsn))
	ctx := context.Background()
	in := []list.Entry{
		{URL: "http://h/", Level: 0, State: list.Downloaded, File: "h/index.html", Modified: t0, Due: t0.Add(time.Hour)},
		{URL: "http://h/claimed-new", Level: 4, State: list.Claimed, Spider: "fast"},
		{URL: "http://h/claimed-copy", Level: 2, State: list.Error, Spider: "slow", File: "h/c.html", Modified: t0, Due: t0},
		{URL: "http://h/gone", Level: 3, State: list.Archived, File: "h/gone.html", Modified: t0.Add(-time.Hour)},
	}
	dup := append(slices.Clone(in), in[0])
	if _, err := s.Import(ctx, yielding(dup)); err == nil {
		t.Fatal("Import of a URL given twice succeeded")
	}
	bad := errors.New("source failed")
	i := 0
	if _, err := s.Import(ctx, func() (list.Entry, bool, error) {
		if i++; i > 2 {
			return list.Entry{}, false, bad
		}
		return in[i-1], true, nil
	}); !errors.Is(err, bad) {
		t.Fatalf("Import with a failing source: %v", err)
	}
	if got := scanAll(t, s); len(got) != 0 {
		t.Fatalf("failed imports left %d lines", len(got))
	}
	n, err := s.Import(ctx, yielding(in))
	if err != nil || n != len(in) {
		t.Fatalf("Import: %d, %v", n, err)
	}
	want := slices.Clone(in)
	want[1].Spider, want[1].State = "", list.Found
	want[2].Spider = ""
	if got := scanAll(t, s); !slices.Equal(got, want) {
		t.Errorf("read back:\n%+v\nwant\n%+v", got, want)
	}
	for _, e := range want {
		if got, ok, err := s.Line(ctx, e.URL); err != nil || !ok || got != e {
			t.Errorf("Line(%s): %+v, %v, %v; want %+v", e.URL, got, ok, err, e)
		}
	}
	if _, ok, err := s.Line(ctx, "http://h/none"); ok || err != nil {
		t.Errorf("Line of a URL not listed: %v, %v", ok, err)
	}
	if _, err := s.Import(ctx, yielding(in[:1])); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("Import into a list with lines: %v, want ErrNotEmpty", err)
	}
	// Passes go on from the imported list: its count, and its deep level
	// for a claim.
	lock(t, s, "a")
	c := mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Add: []list.Add{{URL: "http://h/new", Level: 5}}})
	if c.Stats.Lines != len(in)+1 {
		t.Errorf("a pass after the import counts %d lines, want %d", c.Stats.Lines, len(in)+1)
	}
	c = mustRun(t, s, &list.Cycle{Spider: "a", Now: t0, Pick: &claim.Picker{P: slow, Now: t0}})
	if !slices.ContainsFunc(c.Claimed, func(e list.Entry) bool { return e.URL == "http://h/claimed-new" }) {
		t.Errorf("the imported level-4 line was not claimed: %+v", c.Claimed)
	}
}
