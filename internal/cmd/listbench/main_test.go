package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/internal/pgtest"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// tally counts a list's lines after the benchmark's passes: all of them,
// those each spider holds, and those recorded since start.
type tally struct {
	lines    int
	held     map[string]int
	recorded int
}

func count(t *testing.T, scan func(context.Context, func(*list.Entry) error) error, start time.Time) tally {
	t.Helper()
	n := tally{held: map[string]int{}}
	err := scan(context.Background(), func(e *list.Entry) error {
		n.lines++
		if e.Spider != "" {
			n.held[e.Spider]++
		}
		if !e.Modified.Before(start.Truncate(time.Second)) && e.State == list.Downloaded {
			n.recorded++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func small() options {
	return options{lines: 2000, warmup: 2, passes: 2, adds: 100, batch: 50, spiderFor: time.Minute}
}

// The passes on a list file (2 warm-up passes, 2 measured) append half
// their links, claim a batch and record the previous one.
func TestFilePasses(t *testing.T) {
	o := small()
	o.path = filepath.Join(t.TempDir(), "list")
	start := time.Now()
	if err := runFile(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	l, err := list.Open(o.path, list.Options{Reserve: mirror.ReserveLen})
	if err != nil {
		t.Fatal(err)
	}
	got := count(t, l.Scan, start)
	want := tally{lines: 2000 + 4*50, held: map[string]int{"bench": 50}, recorded: 3 * 50}
	if got.lines != want.lines || got.held["bench"] != 50 || len(got.held) != 1 || got.recorded != want.recorded {
		t.Errorf("after the passes: %+v, want %+v", got, want)
	}
}

// The same passes on PostgreSQL leave the list as on a file; a kept schema
// is reused, not loaded again; K spiders claim, and take back the
// claims of the spider that ended.
func TestPGPasses(t *testing.T) {
	ctx := context.Background()
	o := small()
	o.dsn = pgtest.DSN(t)
	o.schema, o.keep = pgtest.Schema(t, o.dsn, "listbench_"), true
	start := time.Now()
	if err := runPG(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := pglist.Open(ctx, o.dsn, pglist.Options{Schema: o.schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := count(t, s.Scan, start)
	if got.lines != 2000+4*50 || got.held["bench"] != 50 || len(got.held) != 1 || got.recorded != 3*50 {
		t.Errorf("after the passes: %+v, want 2200 lines, 50 held by bench, 150 recorded", got)
	}
	o.spiders = 2
	if err := runPG(ctx, o); err != nil {
		t.Fatal(err)
	}
	got = count(t, s.Scan, start)
	// Spiders passing at once skip the lines another one is claiming and
	// look further: each ends with a full batch.
	if got.lines != 2000+4*50+2*4*50 || got.held["bench"] != 0 || len(got.held) != 2 || got.held["bench-0"] != 50 || got.held["bench-1"] != 50 {
		t.Errorf("after 2 spiders' 4 passes on the kept list: %+v, want 2600 lines, 50 held by each", got)
	}
}

// A schema not kept is dropped at the end.
func TestPGDropsSchema(t *testing.T) {
	ctx := context.Background()
	o := small()
	o.dsn = pgtest.DSN(t)
	o.schema = pgtest.Schema(t, o.dsn, "listbench_")
	if err := runPG(ctx, o); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, o.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, o.schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("schema %s is left after a run without -keep", o.schema)
	}
}
