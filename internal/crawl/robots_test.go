package crawl

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/spider-mirror/spider/list"
)

// A URL robots.txt forbids is recorded disallowed without being requested;
// once robots.txt allows it, the next visit fetches it.
func TestRobotsDisallowThenAllow(t *testing.T) {
	v := newEnv(t)
	v.site.set("/robots.txt", 200, "User-agent: *\nDisallow: /private\n")
	v.site.set("/", 200, `<a href="/private/a">a</a> <a href="/public">b</a>`)
	v.site.set("/private/a", 200, "secret")
	v.site.set("/public", 200, "open")
	v.crawl(t, time.Hour)
	priv := v.line(t, v.base+"/private/a")
	if priv.State != list.Disallowed || priv.File != "" || priv.Modified.IsZero() {
		t.Errorf("forbidden line %+v, want disallowed with its check time and no copy", priv)
	}
	if pub := v.line(t, v.base+"/public"); pub.State != list.Downloaded {
		t.Errorf("allowed line %+v, want downloaded", pub)
	}
	if n := v.hits("/private/a"); n != 0 {
		t.Errorf("forbidden page requested %d times", n)
	}
	if n := v.hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times in one run, want 1", n)
	}
	sts, err := list.ReadStatuses(v.list.Path())
	var st Status
	if err != nil || len(sts) != 1 || json.Unmarshal(sts[0].Extra, &st) != nil || st.Disallowed != 1 {
		t.Errorf("published status %+v (%v): want 1 disallowed", st, err)
	}

	// Within the window the line is not due; after it, it is checked again.
	v.site.set("/robots.txt", 200, "User-agent: *\nDisallow: /nothing\n")
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	if priv := v.line(t, v.base+"/private/a"); priv.State != list.Downloaded || v.file(t, priv.File) != "secret" {
		t.Errorf("after robots.txt allowed it: %+v, want downloaded", priv)
	}
}

// IgnoreRobots fetches what robots.txt forbids and never asks for it.
func TestRobotsIgnored(t *testing.T) {
	v := newEnv(t)
	v.site.set("/robots.txt", 200, "User-agent: *\nDisallow: /\n")
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "a")
	v.ignoreRobots = true
	if sum := v.crawl(t, time.Hour); sum.Fetched != 2 {
		t.Errorf("fetched %d, want 2", sum.Fetched)
	}
	if n := v.hits("/robots.txt"); n != 0 {
		t.Errorf("robots.txt requested %d times with robots off", n)
	}
}

// robots.txt answering 5xx puts the host off limits: no page is
// requested, lines are errors (transient), no copy is touched. A 4xx
// robots.txt allows everything.
func TestRobotsStatus(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "a")
	v.crawl(t, time.Hour) // robots.txt 404: all allowed
	if a := v.line(t, v.base+"/a"); a.State != list.Downloaded {
		t.Fatalf("with robots.txt 404: %+v, want downloaded", a)
	}
	v.site.set("/robots.txt", 503, "busy")
	v.site.set("/a", 200, "changed")
	v.clock = v.clock.Add(2 * time.Hour)
	before := v.hits("/a")
	v.crawl(t, time.Hour)
	a := v.line(t, v.base+"/a")
	if a.State != list.Error || v.file(t, a.File) != "a" || v.hits("/a") != before {
		t.Errorf("with robots.txt 503: %+v (copy %q, %d new requests), want error, copy kept, not requested",
			a, v.file(t, a.File), v.hits("/a")-before)
	}
}

// Links a page asks robots not to follow (its <meta name="robots"> says
// nofollow, or the link has rel="nofollow") are not followed, as wget does
// (MediaWiki marks its edit forms and special pages so); what such a page
// needs to display still is. With robots.txt ignored, they are followed.
func TestNofollowObeyed(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		v := newEnv(t)
		v.site.set("/", 200, `<a href="/machinery">edit</a> <a href="/ad" rel="nofollow">ad</a> <a href="/article">article</a>`)
		v.site.set("/machinery", 200, `<html><head><meta name="robots" content="noindex,nofollow"><link rel="stylesheet" href="/m.css"></head>`+
			`<body><a href="/machinery/deeper">more machinery</a></body></html>`)
		v.site.set("/m.css", 200, "body{}")
		v.site.set("/machinery/deeper", 200, "deeper")
		v.site.set("/ad", 200, "ad")
		v.site.set("/article", 200, "article")
		v.cfg = func(c *Config) { c.IgnoreRobots = ignore }
		v.crawl(t, time.Hour)
		for path, want := range map[string]int{"/machinery": 1, "/m.css": 1, "/article": 1, "/machinery/deeper": 0, "/ad": 0} {
			if ignore && want == 0 {
				want = 1
			}
			if n := v.hits(path); n != want {
				t.Errorf("robots ignored %v: %s requested %d times, want %d", ignore, path, n, want)
			}
		}
	}
}
