package crawl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/mirrorindex"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/list"
)

// TestArchiveAndIndex follows two pages through removal and return: the
// banner on the copy, the events, and the root pages that show them.
func TestArchiveAndIndex(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.ArchiveAfter = 1 } // each step's 404 archives at once
	page := func(title string) string {
		return "<!DOCTYPE html><html><head><title>" + title + "</title></head><body><p>" + title + "</p></body></html>"
	}
	v.site.set("/", 200, `<a href="/a">a</a> <a href="/b">b</a>`)
	v.site.set("/a", 200, page("A one"))
	v.site.set("/b", 200, page("B one"))
	host := strings.TrimPrefix(v.base, "http://")
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(v.mdir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	state := func() mirrorindex.State {
		t.Helper()
		var st mirrorindex.State
		if err := json.Unmarshal([]byte(read(mirrorindex.StateFile)), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	events := func() []string {
		t.Helper()
		var kinds []string
		for _, line := range strings.Split(strings.TrimSpace(read(mirrorindex.EventsFile)), "\n") {
			var ev mirrorindex.Event
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, ev.Kind+" "+strings.TrimPrefix(ev.URL, v.base)+" "+ev.File)
		}
		return kinds
	}
	step := func(what string) {
		v.clock = v.clock.Add(2 * time.Hour)
		v.crawl(t, time.Hour)
		t.Logf("%s: events %q", what, events())
	}

	step("first crawl")
	if st := state(); st.Hosts[host] == nil || st.Hosts[host].Pages != 3 || st.Hosts[host].Archived != 0 {
		t.Errorf("after the first crawl: hosts %+v", st.Hosts)
	}
	if s := read("index.html"); !strings.Contains(s, ">"+host+"</a></td><td class=\"n\">3</td>") {
		t.Errorf("index.html does not list the host with 3 pages:\n%s", s)
	}

	v.site.set("/a", 404, "not found")
	step("/a gone")
	a := host + "/a{}.html"
	if s := read(a); !rewrite.HasBanner([]byte(s)) || !strings.Contains(s, "A one") {
		t.Errorf("archived copy: %s", s)
	}
	if st := state(); st.Hosts[host].Archived != 1 || len(st.Archived) != 1 || st.Archived[0].File != a {
		t.Errorf("after /a gone: %+v", st)
	}
	if s := read("archive.html"); !strings.Contains(s, `<a href="./`+host+`/a%7B%7D.html">`) {
		t.Errorf("archive.html does not link the archived page:\n%s", s)
	}
	if s := read("recent.html"); !strings.Contains(s, `<tr class="archived"><td>2026-11-21 16:00 UTC</td><td>archived</td>`) {
		t.Errorf("recent.html does not show the archiving:\n%s", s)
	}

	step("/a still gone")
	v.site.set("/a", 200, page("A two"))
	step("/a back")
	if s := read(a); rewrite.HasBanner([]byte(s)) || !strings.Contains(s, "A two") {
		t.Errorf("restored copy: %s", s)
	}
	if st := state(); st.Hosts[host].Archived != 0 || len(st.Archived) != 0 {
		t.Errorf("after /a back: %+v", st)
	}

	v.site.set("/b", 200, page("B two"))
	step("/b edited")

	v.cfg = func(c *Config) { c.RemoveArchived = true }
	v.site.set("/b", 410, "gone")
	step("/b gone, copies removed")
	if _, err := os.Stat(filepath.Join(v.mdir, host, "b{}.html")); !os.IsNotExist(err) {
		t.Errorf("archived copy of /b not removed: %v", err)
	}
	if s := read("archive.html"); !strings.Contains(s, "(copy removed)") {
		t.Errorf("archive.html:\n%s", s)
	}
	want := []string{"new / " + host + "/index.html", "new /a " + a, "new /b " + host + "/b{}.html",
		"archived /a " + a, "restored /a " + a,
		"changed /b " + host + "/b{}.html", "archived /b "}
	got := events()
	// The first crawl's three events come in the order the fetches end.
	if len(got) != len(want) || strings.Join(got[3:], "|") != strings.Join(want[3:], "|") {
		t.Errorf("events %q, want %q", got, want)
	}
}

// agree fails the test unless the copy of path carries a banner exactly
// when its line says archived.
func (v *env) agree(t *testing.T, path, when string) list.Entry {
	t.Helper()
	e := v.line(t, v.base+path)
	banner := rewrite.HasBanner([]byte(v.file(t, e.File)))
	if banner != (e.State == list.Archived) {
		t.Errorf("%s: the line says %s but the copy's banner is %v", when, e.State, banner)
	}
	return e
}

// The banner and the line never disagree: a page archived then answering
// 500 is still archived (a server error says nothing of its return), one
// answering 200 loses the banner with the state, and a 404 not yet
// confirmed leaves an error line with a copy unbannered.
func TestBannerAgreesWithLine(t *testing.T) {
	v := newEnv(t)
	v.cfg = func(c *Config) { c.ArchiveAfter, c.ArchiveSpan = 2, time.Hour }
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, "<html><body><p>A</p></body></html>")
	steps := []struct {
		status int
		want   list.State
	}{
		{200, list.Downloaded},
		{404, list.Error}, // one 404: not confirmed yet
		{500, list.Error},
		{404, list.Archived}, // a second 404, two hours on from the first
		{500, list.Archived},
		{503, list.Archived},
		{404, list.Archived},
		{200, list.Downloaded},
		{410, list.Archived},
		{500, list.Archived},
		{200, list.Downloaded},
	}
	for i, s := range steps {
		v.site.set("/a", s.status, "<html><body><p>A</p></body></html>")
		v.clock = v.clock.Add(2 * time.Hour)
		v.crawl(t, time.Hour)
		if e := v.agree(t, "/a", fmt.Sprintf("step %d (%d)", i, s.status)); e.State != s.want {
			t.Errorf("step %d (%d): line %s, want %s", i, s.status, e.State, s.want)
		}
	}
}

// A copy left bannered on a line that is not archived (a spider killed
// between the banner and the pass that records it) is written afresh by
// the next 200, even with the same body as before: its history shows a
// 404 since the last success.
func TestBannerOutlivingItsPassIsRemoved(t *testing.T) {
	v := newEnv(t)
	page := "<html><body><p>A</p></body></html>"
	v.site.set("/", 200, `<a href="/a">a</a>`)
	v.site.set("/a", 200, page)
	v.crawl(t, time.Hour)
	v.site.set("/a", 404, "")
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	e := v.line(t, v.base+"/a")
	if e.State != list.Error {
		t.Fatalf("after one 404: %+v", e)
	}
	bannered := rewrite.Banner([]byte(v.file(t, e.File)), e.URL, v.clock)
	if err := v.m.Write(e.File, bannered); err != nil {
		t.Fatal(err)
	}
	v.site.set("/a", 200, page)
	v.clock = v.clock.Add(2 * time.Hour)
	v.crawl(t, time.Hour)
	v.agree(t, "/a", "a 200 with the same body")
}
