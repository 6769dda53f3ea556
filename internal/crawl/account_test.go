package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/list"
)

// A promise the host's budget cannot keep is said in the run's log once,
// with the arithmetic, however many passes count it (the first, before
// any answer was timed, says the budget's upper bound); each counting
// pass adds a sample to the account over time, and the mirror gets its
// page.
func TestRunSaysOnceWhenPromiseDoesNotFit(t *testing.T) {
	v := newEnv(t)
	links := ""
	for i := range 30 {
		links += fmt.Sprintf(`<a href="/p%d">%d</a>`, i, i)
		v.site.set(fmt.Sprintf("/p%d", i), 200, "page")
	}
	v.site.set("/", 200, links)
	v.crawl(t, time.Hour) // the list now holds 31 lines
	// 31 URLs every 100ms cost 1,116,000 requests an hour; one request
	// every 10ms allows 360,000.
	var log syncBuffer
	var mu sync.Mutex
	clock := v.clock
	v.cfg = func(c *Config) {
		c.Profile.Window, c.Profile.Batch, c.Delay, c.MaxCycles, c.UntilIdle = 100*time.Millisecond, 5, 10*time.Millisecond, 6, false
		c.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c.Now = func() time.Time { // a second a call: every pass counts
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Second)
			return clock
		}
	}
	v.crawl(t, time.Hour)
	host := strings.TrimPrefix(v.base, "http://")
	want := "slow promises 31 URLs every 100ms = 1,116,000 requests/h; host " + host + " allows 360,000/h (delay 10ms): does not fit by 210%; raise the rate (--delay) or lengthen --window"
	if n := strings.Count(log.String(), "does not fit"); n != 1 || !strings.Contains(log.String(), want) {
		t.Errorf("log says %d times that the promise does not fit, want once: %q\nlog:\n%s", n, want, log.String())
	}
	series, err := account.ReadSeries(v.list.Path()+account.SeriesSuffix, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(series) < 2 {
		t.Fatalf("%d samples, want one per counting pass (at least 2)", len(series))
	}
	last := series[len(series)-1]
	// By then the run has timed the host's answers: each request starts
	// the delay after the previous answer ended.
	h := last.Hosts[0]
	if last.Spider != "slow" || h.Host != host || h.Lines != 31 || h.Promise != 1116000 || h.AnswerSec <= 0 ||
		math.Abs(h.Budget-3600/(0.01+h.AnswerSec)) > 1e-6*h.Budget {
		t.Errorf("last sample %+v, want a budget of 3600/(10ms + its answer time) an hour", last)
	}
	page, err := os.ReadFile(filepath.Join(v.mdir, mirrorindex.AccountPage))
	if err != nil || !strings.Contains(string(page), "<h2>"+host+"</h2>") {
		t.Errorf("account page: %v\n%s", err, page)
	}
	// Without a delay the host is not paced: nothing to say.
	var unpaced syncBuffer
	v.cfg = func(c *Config) {
		c.Profile.Window, c.Delay = 100*time.Millisecond, 0
		c.Logger = slog.New(slog.NewTextHandler(&unpaced, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	v.crawl(t, time.Hour)
	if strings.Contains(unpaced.String(), "does not fit") {
		t.Errorf("an unpaced host's promise said not to fit:\n%s", unpaced.String())
	}
}

// A spider's sample weighs the lines by the profiles of every spider that
// published its status on the list, its own first, as spider status does:
// a slow spider whose copies are a day from their window estimates the
// share current as a fast spider with an hour's window would, not as
// though its own window were the shortest.
func TestSampleWeighsTheListsProfiles(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a><a href="/b">b</a>`)
	v.site.set("/a", 200, "a")
	v.site.set("/b", 200, "b")
	v.crawl(t, 24*time.Hour)
	fast := Status{Profile: "fast", WindowSec: 60, MaxLevel: 3, Batch: 10}
	extra, err := json.Marshal(fast)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(list.SpiderStatus{Spider: "fast", Heartbeat: v.clock, Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(v.list.Path()+".spider-fast.json", b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Ten minutes on, nothing is due for the slow spider: its one pass
	// counts the lines as they stand.
	v.clock = v.clock.Add(10 * time.Minute)
	slow := claim.Profile{Name: "slow", Window: 24 * time.Hour, MaxLevel: -1, Batch: 10}
	v.cfg = func(c *Config) { c.Profile = slow }
	v.crawl(t, 24*time.Hour)
	series, err := account.ReadSeries(v.list.Path()+account.SeriesSuffix, time.Time{})
	if err != nil || len(series) == 0 {
		t.Fatalf("series %v: %v", series, err)
	}
	got := series[len(series)-1].Hosts[0]
	tally := func(ps ...claim.Profile) account.Lines {
		tl := account.New(ps, v.clock)
		v.list.Scan(context.Background(), func(e *list.Entry) error { tl.Add(e); return nil })
		for _, l := range tl.Hosts() {
			return l
		}
		t.Fatal("no host tallied")
		return account.Lines{}
	}
	both, alone := tally(slow, fast.ClaimProfile()), tally(slow)
	if both.Current == alone.Current {
		t.Fatalf("the fast profile changes no estimate (%v): the test shows nothing", both.Current)
	}
	if got.Current != both.Current || got.Together != both.Together {
		t.Errorf("sample current %v, together %v; want the list's profiles' %v, %v (the slow one's alone: %v)",
			got.Current, got.Together, both.Current, both.Together, alone.Current)
	}
}
