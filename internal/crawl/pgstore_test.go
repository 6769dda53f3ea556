package crawl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/pglist"
	"github.com/spider-mirror/spider/internal/pgtest"
	"github.com/spider-mirror/spider/list"
)

// The engine runs on a list in PostgreSQL as on a file: its counting
// passes and its passes that carry lines fetched ahead hand pglist a
// picker it can translate (Profiled), and the lines fetched ahead, deep
// behind a backlog of shallower ones, are claimed by the pass that
// carries them (Preferring), so no page is fetched twice. The side files
// go to the store's state path.
func TestEngineOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "list")
	s, err := pglist.Open(ctx, dsn, pglist.Options{Schema: pgtest.Schema(t, dsn, "spidercrawl_"), State: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.LockSpider(ctx, "slow"); err != nil {
		t.Fatal(err)
	}
	v := newEnv(t)
	const wide, deep = 30, 30
	root := `<a href="/p/1">chain</a>`
	for i := range wide {
		root += fmt.Sprintf(` <a href="/w/%d">w</a>`, i)
		v.site.set(fmt.Sprintf("/w/%d", i), 200, "leaf")
	}
	v.site.set("/", 200, root)
	for i := 1; i <= deep; i++ {
		v.site.set(fmt.Sprintf("/p/%d", i), 200, fmt.Sprintf(`page %d <a href="/p/%d">next</a>`, i, i+1))
	}
	v.site.set(fmt.Sprintf("/p/%d", deep+1), 200, "end")
	// A backlog of lines no page links, never fetched ahead, listed first
	// at the level of the root's links.
	const backlog = 100
	var adds []list.Add
	for i := range backlog {
		v.site.set(fmt.Sprintf("/x/%d", i), 200, "listed")
		adds = append(adds, list.Add{URL: fmt.Sprintf("%s/x/%d", v.base, i), Level: 1})
	}
	if _, err := s.Add(ctx, adds); err != nil {
		t.Fatal(err)
	}
	now := v.clock
	cfg := Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 5},
		Starts: []string{v.base + "/"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true,
		Now: func() time.Time { return now }, IgnoreRobots: true,
	}
	e := New(cfg, s, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second, MaxBody: 1 << 20, MaxRedirects: 5}))
	sum, err := e.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := 1 + wide + deep + 1 + backlog; sum.Fetched != want {
		t.Errorf("fetched %d pages, want %d", sum.Fetched, want)
	}
	var lines int
	s.Scan(ctx, func(en *list.Entry) error {
		lines++
		if en.State != list.Downloaded || en.Spider != "" {
			t.Errorf("%+v", *en)
		}
		return nil
	})
	if lines != 1+wide+deep+1+backlog {
		t.Errorf("%d lines", lines)
	}
	v.site.mu.Lock()
	for p, hits := range v.site.hits {
		if hits != 1 && !strings.HasPrefix(p, "/robots") {
			t.Errorf("%s fetched %d times, want once", p, hits)
		}
	}
	v.site.mu.Unlock()
	if _, err := os.Stat(state + meta.Suffix); err != nil {
		t.Errorf("the fetch history is not beside the store's state path: %v", err)
	}
}
