package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/account"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

// writeAccountList writes a list of one host with n lines at level 1, a
// copy of each, half of them a window (1h) old, whose model expects a
// change every interval, and a deeper line with none.
func writeAccountList(t *testing.T, path string, n int, now time.Time, interval time.Duration) {
	t.Helper()
	buf := []byte(list.Header + "\n")
	for i := range n {
		mod := now.Add(-time.Duration(i%2) * time.Hour)
		buf = list.AppendLine(buf, &list.Entry{File: fmt.Sprintf("example.org/p%d.html", i), Level: 1, State: list.Downloaded,
			Modified: mod, Due: mod.Add(interval), URL: fmt.Sprintf("http://example.org/p%d", i)}, 0)
	}
	buf = list.AppendLine(buf, &list.Entry{Level: 9, State: list.Found, Due: now, URL: "http://example.org/deep"}, 0)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// accountDir returns a directory with a list of n lines (writeAccountList),
// a config of a 6-minute delay and, for each spider of samples, an account
// sample of its requests and answer time ({id, requests, answer seconds}).
func accountDir(t *testing.T, n int, now time.Time, samples ...spiderSample) string {
	t.Helper()
	dir := t.TempDir()
	writeAccountList(t, filepath.Join(dir, "spider.list"), n, now, time.Hour)
	if err := os.WriteFile(filepath.Join(dir, "spider.toml"), []byte("delay = \"6m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sp := range samples {
		s := account.Sample{At: now.Add(-10 * time.Minute), Spider: sp.id, Profile: sp.id,
			Hosts: []account.HostSample{{Host: "example.org", Requests: sp.requests, SpanSec: 1800, AnswerSec: sp.answer}}}
		if err := account.AppendSeries(filepath.Join(dir, "spider.list"+account.SeriesSuffix), s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// statusOf runs spider status with the config in dir (and args) and
// returns what it printed; it fails the test on a non-zero exit.
func statusOf(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, out, stderr := runCLI(t, dir, append([]string{"status", "--config", "spider.toml"}, args...)...)
	if code != 0 {
		t.Fatalf("status %v exit %d: %s", args, code, stderr)
	}
	return out
}

type spiderSample struct {
	id       string
	requests int
	answer   float64
}

// A promise the host's budget cannot keep is said so, with the arithmetic
// and the options; the JSON carries the same figures.
func TestStatusAccountPromiseDoesNotFit(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	// 12 URLs within level 3 every hour, one request every 6 minutes: 10
	// an hour. Two spiders' samples: 6 and 3 requests over their last half
	// hour.
	dir := accountDir(t, 12, now, spiderSample{"fast", 6, 0}, spiderSample{"slow", 3, 0})
	store := meta.Open(filepath.Join(dir, "spider.list"+meta.Suffix), time.Second)
	if err := store.Put([]meta.Record{
		{URL: "http://example.org/p0", Attempts: 6, Checks: 5, Changes: 2, Lag: 5 * time.Minute},
		{URL: "http://example.org/p1", Attempts: 2, Checks: 1, Changes: 1, Lag: 3 * time.Hour},
	}); err != nil {
		t.Fatal(err)
	}
	out := statusOf(t, dir)
	for _, want := range []string{
		"account per host (profiles from the config; budget from the config's delay",
		"example.org: 13 lines, 12 copies; budget 10 requests/h, 240/day (delay 6m)",
		"fast promises 12 URLs (level ≤ 3) every 1h = 12 requests/h; host example.org allows 10/h (delay 6m): does not fit by 20%; raise the rate (--delay), lower --max-level, or lengthen --window or --shortest",
		// The slow spider polls pages that change hourly hourly too.
		"slow promises 13 URLs every 24h, or as the change model expects from 30m to 24h = 12 requests/h (every 24h each: 1); host example.org allows 10/h (delay 6m): does not fit by 20%; raise the rate (--delay) or lengthen --window or --shortest",
		// Each line once, at the shorter of the two intervals.
		"the profiles together: 12 requests/h of 10/h: does not fit by 20%; raise the rate (--delay), or lengthen --window or --shortest of a profile",
		"2.7 requests per change caught (8 requests, 3 changes)",
		"announced pages: 1 of 2 reached the mirror within the fast window",
		"made lately: 18 requests/h (the spiders' last samples)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	out = statusOf(t, dir, "--json")
	var st struct {
		Account struct {
			ProfilesFrom string `json:"profiles_from"`
			Hosts        []struct {
				Host    string  `json:"host"`
				Lines   int     `json:"lines"`
				Current float64 `json:"current_share"`
				Budget  struct {
					PerHour   float64 `json:"per_hour"`
					DelayFrom string  `json:"delay_from"`
				} `json:"budget"`
				Promises []struct {
					Profile string  `json:"profile"`
					Kind    string  `json:"kind"`
					URLs    int     `json:"urls"`
					Fits    bool    `json:"fits"`
					Over    float64 `json:"over"`
				} `json:"promises"`
			} `json:"hosts"`
		} `json:"account"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	a := st.Account
	if a.ProfilesFrom != "config" || len(a.Hosts) != 1 {
		t.Fatalf("account %+v", a)
	}
	h := a.Hosts[0]
	if h.Host != "example.org" || h.Lines != 13 || h.Budget.PerHour != 10 || h.Budget.DelayFrom != "config" {
		t.Errorf("host %+v", h)
	}
	// Half the copies are new, half as old as their model's interval
	// (1h): e^0 and e^-1 over 13 lines (status runs a moment later).
	if want := (6 + 6*0.36787944117144233) / 13; h.Current < want-1e-3 || h.Current > want+1e-3 {
		t.Errorf("current share %v, want %v", h.Current, want)
	}
	if p := h.Promises[0]; p.Profile != "fast" || p.Kind != "window" || p.URLs != 12 || p.Fits || p.Over < 0.199 || p.Over > 0.201 {
		t.Errorf("fast promise %+v, want 12 URLs, not fitting by 20%%", p)
	}
}

// Pages the change model expects to change daily cost the fast window's
// promise a visit a day, not an hour: 120 of them at level 1 fit a budget
// of 10 requests an hour that their number alone would exceed.
func TestStatusAccountPromiseByModel(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	dir := accountDir(t, 0, now)
	writeAccountList(t, filepath.Join(dir, "spider.list"), 120, now, 24*time.Hour)
	out := statusOf(t, dir)
	want := "fast promises 120 URLs (level ≤ 3) every 1h, or as the change model expects from 30m to 24h = 5 requests/h (every 1h each: 120); host example.org allows 10/h (delay 6m): fits (50% of the budget)"
	if !strings.Contains(out, want) {
		t.Errorf("status lacks %q:\n%s", want, out)
	}
	out = statusOf(t, dir, "--json")
	var st struct {
		Account struct {
			Hosts []struct {
				Promises []account.Promise `json:"promises"`
			} `json:"hosts"`
		} `json:"account"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Account.Hosts) != 1 || len(st.Account.Hosts[0].Promises) == 0 {
		t.Fatalf("account %+v", st.Account)
	}
	if p := st.Account.Hosts[0].Promises[0]; p.Profile != "fast" || math.Abs(p.PerHour-5) > 1e-9 || p.WindowPerHour != 120 ||
		p.ShortestSec != 1800 || p.LongestSec != 86400 || !p.Fits {
		t.Errorf("fast promise %+v, want 5 requests/h of a window's 120, fitting", p)
	}
}

// Past the first levels, the text shares one line among the deeper ones.
func TestPrintAgesFoldsDeepLevels(t *testing.T) {
	var ages []account.LevelAge
	for lv := range 9 {
		ages = append(ages, account.LevelAge{Level: lv, Copies: 10, MedianSec: 60, P90Sec: 90, MaxSec: float64(100 * (lv + 1))})
	}
	var b strings.Builder
	printAges(&b, ages)
	out := b.String()
	if n := strings.Count(out, "\n"); n != accountLevels+1 {
		t.Errorf("%d lines, want %d:\n%s", n, accountLevels+1, out)
	}
	if want := "  levels 6–8: 30 copies, age max 15m (--json has each level)\n"; !strings.HasSuffix(out, want) {
		t.Errorf("last line of\n%s\nwant %q", out, want)
	}
}

// The budget's delay is the smallest the spiders published; a status
// that published none (an older spider) does not count as a delay of 0;
// without any, the config's, else the default.
func TestSpidersDelay(t *testing.T) {
	sec := func(f float64) *float64 { return &f }
	six := Duration{6 * time.Minute}
	tests := []struct {
		name      string
		published []crawl.Status
		cfg       *Config
		want      time.Duration
		from      string
	}{
		{"smallest published", []crawl.Status{{DelaySec: sec(2)}, {DelaySec: sec(0.5)}}, &Config{}, 500 * time.Millisecond, "spiders"},
		{"none published: config", []crawl.Status{{Profile: "old"}}, &Config{Delay: &six}, 6 * time.Minute, "config"},
		{"none at all: default", nil, &Config{}, time.Second, "default"},
		{"published 0", []crawl.Status{{DelaySec: sec(0)}}, &Config{Delay: &six}, 0, "spiders"},
	}
	for _, tt := range tests {
		d, from := spidersDelay(tt.published, tt.cfg)
		if d != tt.want || from != tt.from {
			t.Errorf("%s: %v from %s, want %v from %s", tt.name, d, from, tt.want, tt.from)
		}
	}
	ps, from, err := accountProfiles([]crawl.Status{{Profile: "fast", WindowSec: 60}, {Profile: "slow", WindowSec: 600}, {Profile: "fast", WindowSec: 120}}, &Config{})
	if err != nil || from != "spiders" || len(ps) != 2 || ps[0].Window != 2*time.Minute {
		t.Errorf("profiles %+v from %s (%v), want fast (its latest status: 2m) and slow from the spiders", ps, from, err)
	}
}

// One level past the first ones keeps its own line; one copy is a copy.
func TestPrintAgesOneDeepLevel(t *testing.T) {
	var ages []account.LevelAge
	for lv := range accountLevels + 1 {
		ages = append(ages, account.LevelAge{Level: lv, Copies: 1, MedianSec: 60, P90Sec: 60, MaxSec: 60})
	}
	var b strings.Builder
	printAges(&b, ages)
	out := b.String()
	if strings.Contains(out, "levels") || strings.Contains(out, "1 copies") {
		t.Errorf("output\n%s\nwant a line per level, each with \"1 copy\"", out)
	}
	if want := "  level 6: 1 copy, age median 1m, 90% 1m, max 1m\n"; !strings.HasSuffix(out, want) {
		t.Errorf("last line of\n%s\nwant %q", out, want)
	}
}

// The budget follows the host's answers as the spiders' account samples
// timed them: each request starts the delay after the previous answer
// ended, so a host answering in 2 minutes at a 6-minute delay takes 7.5
// requests an hour, not 10, and a promise of 8 an hour no longer fits.
func TestStatusAccountBudgetAfterAnswers(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	// Weighed by their requests, the spiders' answers took 2 minutes.
	dir := accountDir(t, 8, now, spiderSample{"fast", 1, 60}, spiderSample{"slow", 3, 140})
	out := statusOf(t, dir)
	for _, want := range []string{
		"example.org: 9 lines, 8 copies; budget 8 requests/h, 180/day (delay 6m after answers of 2m)",
		"fast promises 8 URLs (level ≤ 3) every 1h = 8 requests/h; host example.org allows 8/h (delay 6m after answers of 2m): does not fit by 7%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}
