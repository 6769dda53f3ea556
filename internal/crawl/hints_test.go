package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// A page announced while another spider fetches it for the first time
// (its line claimed, no copy to mark) keeps its announcement: when that
// spider records a copy taken before the announcement, the spider that
// heard it sends the hint again and the line is marked hinted.
func TestAnnouncementOutlivesAnotherSpidersClaim(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "a")
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour)
	v.claimAsOther(t, "/b")
	v.site.set("/", 200, `<a href="/b">b, new</a><a href="/a">a</a>`)
	v.site.set("/b", 200, "b")
	recorded := false
	v.cfg = func(c *Config) {
		c.Profile.MaxLevel = 0           // only the hub is visited
		c.Flush = 200 * time.Millisecond // idle, it looks once more for the other's first visit
		c.Logger = slog.New(logHook(func(r slog.Record) {
			if r.Message != "pass" || recorded || v.line(t, v.base+"/").Modified != v.clock {
				return
			}
			// The pass that recorded the hub has applied its Adds: now the
			// other spider records a copy of /b taken before the hub's visit.
			recorded = true
			res := list.Result{URL: v.base + "/b", State: list.Downloaded, File: "b.html", Modified: v.clock.Add(-time.Minute)}
			if err := v.list.Run(context.Background(), &list.Cycle{Spider: "other", Now: v.clock, Results: []list.Result{res}}); err != nil {
				t.Error(err)
			}
		}))
	}
	v.crawl(t, time.Hour)
	if !recorded {
		t.Fatal("the hub's visit was never recorded")
	}
	if b := v.line(t, v.base+"/b"); !b.Hinted() || b.Spider != "" {
		t.Errorf("/b after the other spider recorded its old copy: %+v; want it hinted", b)
	}
}

// Kept hints are sent again until they are a keep old, at most
// maxKeptHints of them (the newest), and forgotten once the spider claims
// the line itself; a hint is truncated to whole seconds.
func TestKeptHints(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	k := keptHints{keep: time.Minute}
	k.note([]list.Add{
		{URL: "u/a", Level: 1, Hint: now.Add(-10*time.Second + 300*time.Millisecond)},
		{URL: "u/b", Level: 2},                                  // no hint
		{URL: "u/c", Level: 1, Hint: now.Add(-2 * time.Minute)}, // too old already
		{URL: "u/d", Level: 1, Hint: now.Add(-50 * time.Second)},
	}, now)
	got := k.again(now)
	if len(got) != 2 || got[0].URL != "u/a" || got[1].URL != "u/d" || !got[0].Hint.Equal(now.Add(-10*time.Second)) || got[0].Level != 1 {
		t.Fatalf("again: %+v", got)
	}
	if got := k.again(now.Add(20 * time.Second)); len(got) != 1 || got[0].URL != "u/a" {
		t.Errorf("20 s later: %+v, want u/a only", got)
	}
	k.fetching("u/a")
	if got := k.again(now); len(got) != 0 {
		t.Errorf("after the spider claimed u/a: %+v", got)
	}
	k = keptHints{keep: 24 * time.Hour}
	var adds []list.Add
	for i := range maxKeptHints + 10 {
		adds = append(adds, list.Add{URL: fmt.Sprintf("u/%d", i), Hint: now.Add(time.Duration(i-maxKeptHints-10) * time.Second)})
	}
	k.note(adds, now)
	got = k.again(now)
	if len(got) != maxKeptHints {
		t.Fatalf("kept %d, want %d", len(got), maxKeptHints)
	}
	for _, a := range got {
		if a.URL == "u/9" {
			t.Error("an oldest hint was kept over newer ones")
		}
	}
}
