package crawl

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/hostile"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/list"
)

// goodCopy mirrors path while the hostile site is healthy and returns the
// copy, then makes the site misbehave again.
func (v *hostileEnv) goodCopy(t *testing.T, path string) []byte {
	t.Helper()
	v.site.SetHealthy(true)
	v.run(t, path)
	good := v.copyOf(t, v.line(t, path))
	v.site.SetHealthy(false)
	return good
}

func (v *hostileEnv) history(t *testing.T, path string) meta.Record {
	t.Helper()
	return historyOf(t, v.list, v.base+path)
}

// One 404 is not enough to archive: a page that answers 404 once and then
// 200 again is never archived, and its copy is never touched.
func TestHostile404Then200(t *testing.T) {
	const p = "/404-then-200"
	v := newHostile(t, hostile.Options{FailFirst: 1})
	good := v.goodCopy(t, p)
	before := v.site.Hits(p)

	v.clock = v.clock.Add(2 * time.Hour)
	v.run(t, p)
	e := v.line(t, p)
	if e.State != list.Error || !bytes.Equal(v.copyOf(t, e), good) {
		t.Fatalf("after one 404: %+v, want error with the copy untouched", e)
	}
	if h := v.history(t, p); h.Status != 404 || h.NotFound != 1 || !strings.Contains(h.Reason, "404 on 1 of 2") {
		t.Errorf("history after one 404: %+v", h)
	}

	v.clock = v.clock.Add(2 * time.Hour)
	sum := v.run(t, p)
	e = v.line(t, p)
	if e.State != list.Downloaded || sum.Archived != 0 || rewrite.HasBanner(v.copyOf(t, e)) {
		t.Errorf("after 404 then 200: %+v, %d archived", e, sum.Archived)
	}
	if h := v.history(t, p); h.NotFound != 0 || h.Status != 200 {
		t.Errorf("history after the 200: %+v", h)
	}
	if n := v.site.Hits(p) - before; n != 2 {
		t.Errorf("%d requests, want 2 (the 404 and the 200)", n)
	}
}

// Two 404s in a row, a confirmation delay apart, archive the page; the
// second attempt waits for that delay even though the line is due.
func TestHostile404Confirmed(t *testing.T) {
	const p = "/404-then-200"
	v := newHostile(t, hostile.Options{FailFirst: 5})
	v.cfg = func(c *Config) { c.ConfirmGone = time.Minute }
	good := v.goodCopy(t, p)
	before := v.site.Hits(p)

	v.clock = v.clock.Add(2 * time.Hour)
	v.run(t, p)
	if e := v.line(t, p); e.State != list.Error {
		t.Fatalf("after one 404: %+v", e)
	}
	v.clock = v.clock.Add(30 * time.Second) // due by its window, not by its history
	v.run(t, p)
	if n := v.site.Hits(p) - before; n != 1 {
		t.Fatalf("%d requests within the confirmation delay, want 1", n)
	}
	v.clock = v.clock.Add(time.Minute)
	v.run(t, p)
	e := v.line(t, p)
	if e.State != list.Archived {
		t.Fatalf("after a second 404: %+v, want archived", e)
	}
	c := v.copyOf(t, e)
	if tail := good[max(0, len(good)-40):]; !rewrite.HasBanner(c) || len(c) <= len(good) || !bytes.Contains(c, tail) {
		t.Errorf("archived copy lost its page or has no banner:\n%s", c)
	}
	if h := v.history(t, p); !strings.Contains(h.Reason, "archived: the site answered 404 on 2 attempts") {
		t.Errorf("history: %+v", h)
	}
}

// A 410 archives at once, after one request; the copy is kept.
func TestHostile410(t *testing.T) {
	const p = "/410"
	v := newHostile(t, hostile.Options{})
	v.goodCopy(t, p)
	before := v.site.Hits(p)
	v.clock = v.clock.Add(2 * time.Hour)
	v.run(t, p)
	e := v.line(t, p)
	if e.State != list.Archived || !rewrite.HasBanner(v.copyOf(t, e)) {
		t.Errorf("after 410: %+v, want archived with its copy bannered", e)
	}
	if n := v.site.Hits(p) - before; n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
