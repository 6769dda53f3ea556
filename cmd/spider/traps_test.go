package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// trapSite serves a page with wiki machinery links, and an endless
// calendar whose days are near-identical.
func trapSite(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if day, err := time.Parse("2006-01-02", strings.TrimPrefix(r.URL.Path, "/cal/")); err == nil {
			fmt.Fprintf(w, `<h1>%s</h1><a href="%s">previous</a> <a href="%s">next</a>`, day.Format("Monday 2 January"),
				day.AddDate(0, 0, -1).Format("2006-01-02"), day.AddDate(0, 0, 1).Format("2006-01-02"))
			return
		}
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<a href="/cal/2026-11-21">calendar</a> <a href="/index.php?title=Home&amp;action=edit">edit</a>
<a href="/feed/">feed</a> <a href="/wiki/Special:RecentChanges">changes</a>`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// spider status counts what the defences cut by reason and names the
// capped pattern; spider show says why a URL was filtered, and a config
// that follows a family again is obeyed by show too.
func TestFilteredShowStatus(t *testing.T) {
	base := trapSite(t)
	dir := t.TempDir()
	if code, out := spiderRun(t, dir, 60*time.Second, "--profile", "slow", "--until-idle", "--delay", "0", "--start", base+"/", "-q"); code != 0 {
		t.Fatalf("spider exit %d:\n%s", code, out)
	}
	code, out, stderr := runCLI(t, dir, "status")
	for _, want := range []string{"filtered (distinct links not followed, by reason):", "site machinery", "feed",
		"capped  " + strings.TrimPrefix(base, "http://") + "/cal/N-N-N: near-identical pages"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("status: exit %d, missing %q:\n%s%s", code, want, out, stderr)
		}
	}
	code, out, _ = runCLI(t, dir, "status", "--json")
	var st Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.Filtered["feed"] != 1 || len(st.CappedPatterns) != 1 {
		t.Errorf("status --json: exit %d, %v: filtered %v, capped %+v", code, err, st.Filtered, st.CappedPatterns)
	}
	shows := []struct{ url, want string }{
		{base + "/index.php?title=Home&action=edit", `filtered  site machinery (edit, history, diff, special pages, API) (action=edit); to follow such links, add "edit" to [scope] follow`},
		{base + "/feed/", "filtered  feed (/feed/)"},
		{base + "/a?PHPSESSID=x1&b=2", "filtered  session id or cache buster removed from the URL: links to it are taken as " + base + "/a?b=2"},
		{base + "/cal/2030-01-01", "filtered  near-identical pages of one URL pattern: " + strings.TrimPrefix(base, "http://") + "/cal/N-N-N, capped by spider slow after"},
		{base + "/cal/2026-11-21", "state"},
	}
	for _, s := range shows {
		if code, out, stderr := runCLI(t, dir, "show", s.url); code != 0 || !strings.Contains(out, s.want) {
			t.Errorf("show %s: exit %d, want %q in:\n%s%s", s.url, code, s.want, out, stderr)
		}
	}
	if _, out, _ := runCLI(t, dir, "show", base+"/cal/2026-11-21"); strings.Contains(out, "filtered") {
		t.Errorf("show of a listed URL says filtered:\n%s", out)
	}
	conf := filepath.Join(dir, "follow.toml")
	os.WriteFile(conf, []byte("[scope]\nfollow = [\"feeds\"]\n"), 0o644)
	if _, out, _ := runCLI(t, dir, "show", "--config", conf, base+"/feed/"); strings.Contains(out, "filtered") {
		t.Errorf("show under follow = [\"feeds\"] still says filtered:\n%s", out)
	}
	// Cuts by the scope and the limits, which no spider counts, are
	// worked out by show from the config and the list's start URLs.
	os.WriteFile(conf, []byte("[scope]\nexclude = [\"/old/\"]\n"), 0o644)
	for _, s := range []struct{ url, want string }{
		{base + "/old/page", "filtered  excluded: it matches a [scope] exclude pattern"},
		{"http://elsewhere.example/", "filtered  out of scope: its host is no start URL's"},
		{base + "/a/a/a/page", "filtered  repeated segments: [limits] max_repeat"},
		{base + "/new/page", "no line for this URL (not found by any spider yet"},
	} {
		if code, out, stderr := runCLI(t, dir, "show", "--config", conf, s.url); code != 0 || !strings.Contains(out, s.want) {
			t.Errorf("show %s: exit %d, want %q in:\n%s%s", s.url, code, s.want, out, stderr)
		}
	}
}

// A family the config names wrongly, or a negative budget, is a usage
// error that lists the families.
func TestTrapConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for toml, want := range map[string]string{
		"[scope]\nfollow = [\"feed\"]\n": `unknown family "feed"`,
		"[limits]\nsimilar_pages = -1\n": "similar_pages must not be negative",
	} {
		conf := filepath.Join(dir, "c.toml")
		os.WriteFile(conf, []byte(toml), 0o644)
		code, _, stderr := runCLI(t, dir, "--profile", "slow", "--config", conf, "--start", "http://127.0.0.1:9/", "--until-idle")
		if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "hint:") {
			t.Errorf("%q: exit %d, want 2 with %q and a hint:\n%s", toml, code, want, stderr)
		}
	}
}
