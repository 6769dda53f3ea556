package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/list"
)

var countAttr = regexp.MustCompile(` count=(\d+)`)

// grouped returns the log lines whose message starts with msg and the sum
// of their counts.
func grouped(t *testing.T, log, msg string) (lines, total int) {
	t.Helper()
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, `msg="`+msg) {
			continue
		}
		lines++
		m := countAttr.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("warning without a count: %s", l)
		}
		n, _ := strconv.Atoi(m[1])
		total += n
	}
	return lines, total
}

// Warnings come one line per cause and pass with a count, never one per
// URL: a page linking 200 broken pages, then robots.txt unreachable for
// the whole host.
func TestWarningsGroupedPerPass(t *testing.T) {
	v := newEnv(t)
	var links strings.Builder
	for i := range 200 {
		fmt.Fprintf(&links, `<a href="/broken/%d">b</a>`, i)
		v.site.set(fmt.Sprintf("/broken/%d", i), 500, "")
	}
	v.site.set("/robots.txt", 200, "User-agent: *\nDisallow: /private/\n")
	v.site.set("/", 200, links.String())
	var log syncBuffer
	v.cfg = func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c.Profile.Batch = 50
	}
	sum := v.crawl(t, time.Hour)
	lines, total := grouped(t, log.String(), "fetch failed: 500 Internal Server Error")
	if total != 200 || lines > sum.Cycles || lines == 0 {
		t.Errorf("500s: %d warning lines counting %d in %d passes; want 200 counted, at most a line a pass:\n%s", lines, total, sum.Cycles, log.String())
	}
	if !strings.Contains(log.String(), "first_url="+v.base+"/broken/") {
		t.Errorf("the first URL of a cause is not named:\n%s", log.String())
	}

	v.site.set("/robots.txt", 503, "")
	v.clock = v.clock.Add(48 * time.Hour)
	log.mu.Lock()
	log.b.Reset()
	log.mu.Unlock()
	sum = v.crawl(t, time.Hour)
	lines, total = grouped(t, log.String(), "robots.txt unreachable")
	if total != sum.Errors || total < 50 || lines > sum.Cycles {
		t.Errorf("robots.txt unreachable: %d warning lines counting %d in %d passes, %d errors:\n%s", lines, total, sum.Cycles, sum.Errors, log.String())
	}
	if n := v.hits("/broken/0"); n != 1 {
		t.Errorf("a page was fetched %d times; robots.txt unreachable must keep the host off limits", n)
	}
}

// Causes past the bound are counted together, so a run with ever new
// kinds of failure still logs a bounded number of lines a pass.
func TestWarningsBounded(t *testing.T) {
	var w warnings
	for i := range maxWarnCauses + 30 {
		w.note(slog.LevelWarn, fmt.Sprintf("cause %d", i), "http://h/", "i", i)
		w.note(slog.LevelWarn, fmt.Sprintf("cause %d", i), "http://h/other")
	}
	var b syncBuffer
	w.flush(slog.New(slog.NewTextHandler(&b, nil)))
	out := b.String()
	if n := strings.Count(out, "\n"); n != maxWarnCauses+1 {
		t.Errorf("%d lines, want %d:\n%s", n, maxWarnCauses+1, out)
	}
	if !strings.Contains(out, `msg="cause 0" count=2 first_url=http://h/ i=0`) || !strings.Contains(out, `msg="other warnings (too many kinds to list)" count=60`) {
		t.Errorf("flushed:\n%s", out)
	}
	b.b.Reset()
	w.flush(slog.New(slog.NewTextHandler(&b, nil)))
	if b.String() != "" {
		t.Errorf("a second flush repeats: %s", b.String())
	}
}

// A start page whose latest list turned over whole between two polls may
// have listed pages the spider never saw: it is polled again half as long
// after, down to a second (no delay). The run's log says so, with what
// paces the host, only when a poll that came that soon still found the
// list turned over. A list that only scrolled, its old top still below its new
// entries, raises nothing.
func TestTurnedOverWarned(t *testing.T) {
	const msg = "a start page's latest links all changed since its last poll"
	home := func(latest ...string) string {
		var b strings.Builder
		b.WriteString(`<a href="/s/">s</a>`)
		for _, p := range latest {
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, p, p)
		}
		b.WriteString(`<a href="/about">about</a>`)
		return b.String()
	}
	v := newEnv(t)
	for _, p := range []string{"/s/", "/about", "/a", "/b", "/c", "/n"} {
		v.site.set(p, 200, p)
	}
	var log syncBuffer
	v.cfg = func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c.Profile.MaxLevel = 0 // only the home page is visited again
	}
	// poll serves the home page with latest, crawls, and moves the clock
	// to the home page's next poll, returning how far that is.
	poll := func(latest ...string) time.Duration {
		v.site.set("/", 200, home(latest...))
		v.crawl(t, time.Hour) // shortest is the window, 1h
		e := v.line(t, v.base+"/")
		if !e.Due.After(e.Modified) {
			t.Fatalf("home page line %+v: no poll due", e)
		}
		next := e.Due.Sub(e.Modified)
		v.clock = e.Due
		return next
	}
	poll("/a", "/b", "/c")
	if next := poll("/n", "/a", "/b"); next < time.Hour { // scrolled by one
		t.Errorf("a list that scrolled by one is polled again after %v, want the model's, an hour at least", next)
	}
	if lines, _ := grouped(t, log.String(), msg); lines != 0 {
		t.Fatalf("warned of a list that scrolled by one:\n%s", log.String())
	}
	// Turned over at every poll: half as long each time, to a second.
	last := time.Hour
	for i := 0; last > time.Second && i < 20; i++ {
		next := poll(fmt.Sprintf("/t%d-1", i), fmt.Sprintf("/t%d-2", i), fmt.Sprintf("/t%d-3", i))
		if want := max((last / 2).Truncate(time.Second), time.Second); next != want {
			t.Fatalf("turned over after %v: next poll after %v, want %v", last, next, want)
		}
		lines, _ := grouped(t, log.String(), msg)
		if soon := last <= 2*time.Second; (lines == 1) != soon {
			t.Fatalf("turned over after %v: %d warning lines:\n%s", last, lines, log.String())
		}
		last = next
	}
	if last != time.Second {
		t.Fatalf("polls came down to %v, want a second", last)
	}
	poll("/u1", "/u2", "/u3") // turned over at the floor
	if lines, total := grouped(t, log.String(), msg); lines != 1 || total != 1 {
		t.Fatalf("%d warning lines counting %d, want one of one:\n%s", lines, total, log.String())
	}
	// No delay spaces these polls (the second does): no --delay to
	// shorten, but the warning says what paces the host (TestDelayPaces).
	if strings.Contains(log.String(), "a shorter --delay") || !strings.Contains(log.String(), "crawl_delay=0s") {
		t.Errorf("the warning offers a shorter --delay where there is none, or does not say what paces the host:\n%s", log.String())
	}
	// The spider's status counts every such poll of its run (one here:
	// each poll above is a run), for spider status.
	sts, err := list.ReadStatuses(v.list.Path())
	var st Status
	if err != nil || len(sts) != 1 || json.Unmarshal(sts[0].Extra, &st) != nil {
		t.Fatalf("published statuses %+v: %v", sts, err)
	}
	if len(st.Turnovers) != 1 || st.Turnovers[0].URL != v.base+"/" || st.Turnovers[0].Polls != 1 {
		t.Errorf("published turnovers %+v, want the start page's, one poll", st.Turnovers)
	}
	// Not after a pause: the list turns over, but the poll came late.
	v.clock = v.clock.Add(2 * time.Hour)
	poll("/a", "/b", "/c")
	if lines, _ := grouped(t, log.String(), msg); lines != 1 {
		t.Errorf("warned after a poll that came late:\n%s", log.String())
	}
	// Once a run for each start page; the status counts every poll.
	var n navigation
	at := v.clock
	if n.turnedOver("http://h/", at, false) || !n.turnedOver("http://h/", at.Add(time.Second), true) ||
		n.turnedOver("http://h/", at.Add(time.Minute), true) || !n.turnedOver("http://g/", at, true) {
		t.Error("turnedOver: want false (a poll that came late), true, false, then true for another start page")
	}
	want := []Turnover{{URL: "http://g/", Polls: 1, Last: at}, {URL: "http://h/", Polls: 3, Last: at.Add(time.Minute)}}
	if got := n.turnovers(); !slices.Equal(got, want) {
		t.Errorf("turnovers %+v, want %+v", got, want)
	}
}

// A fetch cut short by a setting names the setting.
func TestLimitHint(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string // a word of the hint; "" for none
	}{
		{fmt.Errorf("fetch: GET u: %w", fetch.ErrTooLarge), "max_body"},
		{fmt.Errorf("fetch: GET u: %w", fetch.ErrTooSlow), "min_rate"},
		{fmt.Errorf("fetch: GET u: stopped after 10 redirects: %w", fetch.ErrRedirects), "max_redirects"},
		{fmt.Errorf("fetch: GET u: redirect to v not followed: %w", fetch.ErrRedirectRefused), ""},
		{fmt.Errorf("fetch: GET u: read body: %w", context.DeadlineExceeded), "timeout"},
		{&fetch.HTTPError{StatusCode: 503, Status: "503 Service Unavailable"}, ""},
	} {
		got := limitHint(tc.err)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("limitHint(%v) = %q, want it to name %q", tc.err, got, tc.want)
		}
	}
}
