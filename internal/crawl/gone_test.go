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
	if h := v.history(t, p); h.Status != 404 || h.NotFound != 1 || !strings.Contains(h.Reason, "404 answers: 1 over 0s, 3 over 1h0m0s archive") {
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

// Three 404s over an hour archive the page: the attempts in between wait
// for their turn (half an hour apart) even though the line is due.
func TestHostile404ConfirmedOverSpan(t *testing.T) {
	const p = "/404-then-200"
	v := newHostile(t, hostile.Options{FailFirst: 5})
	good := v.goodCopy(t, p)
	before := v.site.Hits(p)

	v.clock = v.clock.Add(2 * time.Hour)
	for i, wait := range []time.Duration{0, 30 * time.Second, 29*time.Minute + 30*time.Second, 29 * time.Minute} {
		v.clock = v.clock.Add(wait) // due by its window, not always by its history
		v.run(t, p)
		e := v.line(t, p)
		if e.State != list.Error || rewrite.HasBanner(v.copyOf(t, e)) {
			t.Fatalf("run %d, %v after the first 404: %+v, want error with its copy unbannered", i, wait, e)
		}
	}
	if n := v.site.Hits(p) - before; n != 2 {
		t.Fatalf("%d requests in the hour, want 2 (at 0 and 30m)", n)
	}
	v.clock = v.clock.Add(time.Minute) // an hour after the first 404
	if sum := v.run(t, p); sum.Archived != 1 {
		t.Errorf("the run that archived the page counts %d archived, want 1", sum.Archived)
	}
	e := v.line(t, p)
	if e.State != list.Archived {
		t.Fatalf("after a third 404 an hour after the first: %+v, want archived", e)
	}
	c := v.copyOf(t, e)
	if tail := good[max(0, len(good)-40):]; !rewrite.HasBanner(c) || len(c) <= len(good) || !bytes.Contains(c, tail) {
		t.Errorf("archived copy lost its page or has no banner:\n%s", c)
	}
	if h := v.history(t, p); !strings.Contains(h.Reason, "archived: the site answered 404 3 times over 1h0m0s") {
		t.Errorf("history: %+v", h)
	}
	if n := v.site.Hits(p) - before; n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	// Checked again and still gone: the run archived nothing new.
	v.clock = v.clock.Add(2 * time.Hour)
	if sum := v.run(t, p); sum.Archived != 0 || v.site.Hits(p)-before != 4 || v.line(t, p).State != list.Archived {
		t.Errorf("a run that found the archived page gone again counts %d archived, want 0", sum.Archived)
	}
}

// A page answering 404 for a few minutes (a deploy, a flapping backend)
// is never archived nor bannered, however often the spider passes by.
func TestBrief404NotArchived(t *testing.T) {
	v := newEnv(t)
	page := "<html><body><p>live</p></body></html>"
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, page)
	v.crawl(t, time.Hour)
	v.clock = v.clock.Add(2 * time.Hour)
	down := v.clock
	for v.clock.Before(down.Add(90 * time.Minute)) {
		status := 200
		if v.clock.Before(down.Add(5 * time.Minute)) {
			status = 404
		}
		v.site.set("/a", status, page)
		v.crawl(t, time.Hour)
		v.agree(t, "/a", v.clock.Sub(down).String()+" after the 404s began")
		if e := v.line(t, v.base+"/a"); e.State == list.Archived {
			t.Fatalf("%v after the 404s began: archived a page that answered 404 for 5 minutes", v.clock.Sub(down))
		}
		v.clock = v.clock.Add(time.Minute)
	}
	if e := v.line(t, v.base+"/a"); e.State != list.Downloaded {
		t.Errorf("finally: %+v, want downloaded", e)
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
