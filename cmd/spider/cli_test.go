package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs the program in-process and returns its exit code and output.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var stdout, stderr bytes.Buffer
	code := report(&stderr, run(context.Background(), args, &stdout, &stderr))
	return code, stdout.String(), stderr.String()
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "typo.toml"), []byte("[profile.fast]\nwindo = \"1h\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "zero.toml"), []byte("[profile.fast]\nwindow = \"0s\"\n"), 0o644)
	for name, body := range map[string]string{
		"redirects0.toml": "[fetch]\nmax_redirects = 0\n", "body0.toml": "[fetch]\nmax_body = 0\n",
		"timeout0.toml": "[fetch]\ntimeout = \"0s\"\n", "rate.toml": "[fetch]\nmin_rate = -1\n",
		"ua.toml": "[fetch]\nuser_agent = \"bad\\nua\"\n", "hosts.toml": "hosts = [\"http://127.0.0.1:2/\"]\n",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--profile", "medium"}, 2, []string{"spider: error: invalid profile \"medium\", must be one of (fast|slow)", "spider: hint:"}},
		{[]string{"--bogus"}, 2, []string{"spider: error: unknown flag: --bogus", "spider: hint: spider --help"}},
		{[]string{}, 2, []string{"spider: error: no profile given", "spider: hint: run spider --profile fast"}},
		{[]string{"--profile", "fast", "--config", "typo.toml"}, 2, []string{"unknown key profile.fast.windo", "spider: hint:"}},
		{[]string{"--profile", "fast", "--config", "zero.toml"}, 2, []string{"window in the config) must be positive, got 0s"}},
		{[]string{"--profile", "fast", "--config", "missing.toml"}, 2, []string{"missing.toml does not exist"}},
		{[]string{"--profile", "fast", "--window", "0s"}, 2, []string{"--window (window in the config) must be positive", "hint: the window is"}},
		{[]string{"--profile", "fast", "--window", "soon"}, 2, []string{"invalid argument \"soon\"", "hint: durations are written as 90s"}},
		{[]string{"--profile", "fast", "--window", "1h", "--shortest", "2h"}, 2, []string{"--shortest (shortest in the config) must not be longer than the window, got 2h0m0s with a window of 1h0m0s", "hint:"}},
		{[]string{"--profile", "fast", "--shortest", "-5s"}, 2, []string{"--shortest (shortest in the config) must be positive, got -5s", "hint: leave --shortest out"}},
		{[]string{"--profile", "fast", "--for", "-1s"}, 2, []string{"--for must not be negative", "hint: leave --for out"}},
		{[]string{"--profile", "fast", "--start", "ftp://x/"}, 2, []string{"start URL \"ftp://x/\"", "hint: start URLs are absolute"}},
		{[]string{"--profile", "fast"}, 2, []string{"nothing to crawl", "hint: pass --start URL"}},
		{[]string{"frobnicate"}, 2, []string{"unknown command \"frobnicate\""}},
		{[]string{"--profile", "fast", "--log-format", "xml"}, 2, []string{"invalid --log-format \"xml\", must be one of (text|json)"}},
		{[]string{"--profile", "fast", "-q", "-vv"}, 2, []string{"spider: error: --quiet and --verbose contradict each other", "spider: hint: give one"}},
		{[]string{"status", "--list", "nope.list"}, 2, []string{"list nope.list does not exist", "hint:"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--config", "redirects0.toml"}, 2, []string{"[fetch] max_redirects must be 1 to 100, got 0", "hint: leave it out for 10"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--config", "body0.toml"}, 2, []string{"[fetch] max_body must be at least 1 byte, got 0"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--config", "timeout0.toml"}, 2, []string{"[fetch] timeout must be positive, got 0s"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--config", "rate.toml"}, 2, []string{"[fetch] min_rate must not be negative, got -1"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--config", "ua.toml"}, 2, []string{"[fetch] user_agent \"bad\\nua\" is blank or holds a control character"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--config", "hosts.toml"}, 2, []string{"hosts: \"http://127.0.0.1:2/\" is not a host", "hint: write a host or host:port"}},
		{[]string{"list", "check", "--list", "nope.list"}, 2, []string{"list nope.list does not exist", "hint:"}},
		{[]string{"list", "compact", "--list", "nope.list"}, 2, []string{"list nope.list does not exist", "hint:"}},
		{[]string{"list", "export", "--list", "nope.list"}, 2, []string{"list nope.list does not exist", "hint:"}},
		{[]string{"--profile", "fast", "--start", "http://127.0.0.1:1/", "--list", "typo/spider.list"}, 2,
			[]string{"the directory of the list typo/spider.list does not exist", "hint: check --list (list in the config); for a new list there, create the directory first: mkdir -p typo"}},
	}
	defer func() {
		if _, err := os.Stat(filepath.Join(dir, "typo")); err == nil {
			t.Error("a run on a list in a missing directory created it")
		}
	}()
	for _, tt := range tests {
		code, _, stderr := runCLI(t, dir, tt.args...)
		if code != tt.code {
			t.Errorf("spider %v: exit %d, want %d; stderr:\n%s", tt.args, code, tt.code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("spider %v: stderr %q does not contain %q", tt.args, stderr, w)
			}
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	code, out, _ := runCLI(t, t.TempDir(), "--help")
	for _, w := range []string{"--profile", "--until-idle", "Exit status:", "spider status"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("--help: exit %d, output lacks %q", code, w)
		}
	}
	code, out, _ = runCLI(t, t.TempDir(), "--version")
	if code != 0 || !strings.HasPrefix(out, "spider ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

func TestMalformedListIsReported(t *testing.T) {
	dir := t.TempDir()
	bad := "# spider-list v1: file spider_id level state last_modification url\n- - 0 found - http://127.0.0.1:1/\n- - 0 misplaced - http://127.0.0.1:1/a\n"
	os.WriteFile(filepath.Join(dir, "spider.list"), []byte(bad), 0o644)
	code, _, stderr := runCLI(t, dir, "--profile", "fast", "--until-idle")
	if code != 1 || !strings.Contains(stderr, "spider.list:3: malformed line: unknown state \"misplaced\"") || !strings.Contains(stderr, "hint:") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "spider.list")); string(got) != bad {
		t.Errorf("the list was changed:\n%s", got)
	}
}

func TestStatusJSON(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spider.list"), []byte("# spider-list v1: file spider_id level state last_modification url\n"+
		"h/index.html - 0 downloaded 2020-11-21T20:00:00Z http://h/\n- dead 1 claimed - http://h/a\n- - 1 found - http://h/b\n"), 0o644)
	// A fast spider (window 1h, level limit 0) published its profile.
	os.WriteFile(filepath.Join(dir, "spider.list.spider-fast.json"), []byte(`{"spider":"fast","extra":{"profile":"fast","window_s":3600,"max_level":0}}`), 0o644)
	os.Mkdir(filepath.Join(dir, "spider.list.hosts.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "spider.list.hosts.d", "h"), make([]byte, 300), 0o644)
	os.WriteFile(filepath.Join(dir, "spider.list.hosts.d", "g"), make([]byte, 12), 0o644)
	code, out, stderr := runCLI(t, dir, "status", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var st Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if st.Lines != 3 || st.States["downloaded"] != 1 || st.States["claimed"] != 1 || st.Claims["dead"] != 1 ||
		len(st.Levels) != 2 || st.Levels[0].Copies != 1 || st.Levels[1].Lines != 2 || st.Levels[1].OldestCopy != nil ||
		st.Due["fast"] != 1 || len(st.Spiders) != 1 {
		t.Errorf("status %+v", st)
	}
	// Every state is there, those with no line at 0: a script may read any.
	if n, ok := st.States["disallowed"]; !ok || n != 0 || len(st.States) != 6 {
		t.Errorf("states %v, want all six, disallowed at 0", st.States)
	}
	if want := (FileSizes{List: 181, HostsD: 312}); st.Files != want {
		t.Errorf("files %+v, want %+v", st.Files, want)
	}
	code, out, _ = runCLI(t, dir, "status")
	if code != 0 || !strings.Contains(out, "list 181 B, history (.meta) 0 B, host pace (.hosts.d) 312 B, journal 0 B") {
		t.Errorf("status: exit %d:\n%s", code, out)
	}
}

func TestBytesText(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {999, "999 B"}, {1000, "1.0 KB"}, {3456, "3.5 KB"}, {16777216, "16.8 MB"}, {1_200_000_000, "1.2 GB"}, {5e15, "5000.0 TB"}} {
		if got := bytesText(tc.n); got != tc.want {
			t.Errorf("bytesText(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// Under cron (no terminal) only warnings and errors are printed; at a
// terminal the info lines (start, the closing summary) too.
func TestLogLevels(t *testing.T) {
	tests := []struct {
		verbose    int
		quiet      bool
		tty        bool
		info, warn bool
	}{
		{0, false, false, false, true},
		{0, false, true, true, true},
		{1, false, false, true, true},
		{0, true, true, false, false},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		log := newLogger(&b, tt.verbose, tt.quiet, "text", tt.tty)
		log.Info("i")
		log.Warn("w")
		if got := strings.Contains(b.String(), "msg=i"); got != tt.info {
			t.Errorf("%+v: info printed %v", tt, got)
		}
		if got := strings.Contains(b.String(), "msg=w"); got != tt.warn {
			t.Errorf("%+v: warning printed %v", tt, got)
		}
	}
}

// status merges what the spiders published: archivals of the last day,
// host fetch times weighted by fetches, failures summed by kind.
func TestStatusMergesObservations(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spider.list"), []byte("# spider-list v1: file spider_id level state last_modification url\n- - 0 found - http://h/\n"), 0o644)
	recent := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	old := time.Now().Add(-48 * time.Hour).UTC().Format(time.RFC3339)
	os.WriteFile(filepath.Join(dir, "spider.list.spider-fast.json"), []byte(`{"spider":"fast","extra":{"window_s":3600,"max_level":3,
		"archived_last_day":[{"url":"http://h/gone","at":"`+recent+`"}],
		"slowest_hosts":[{"host":"h","fetches":2,"mean_s":1}],
		"frequent_errors":[{"error":"503 Service Unavailable","count":3}]}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "spider.list.spider-slow.json"), []byte(`{"spider":"slow","extra":{"window_s":86400,"max_level":-1,
		"archived_last_day":[{"url":"http://h/old","at":"`+old+`"}],
		"slowest_hosts":[{"host":"h","fetches":2,"mean_s":3},{"host":"g","fetches":1,"mean_s":0.5}],
		"frequent_errors":[{"error":"503 Service Unavailable","count":2},{"error":"network error or timeout","count":1}]}}`), 0o644)
	code, out, stderr := runCLI(t, dir, "status", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var st Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.ArchivedLastDay) != 1 || st.ArchivedLastDay[0].URL != "http://h/gone" {
		t.Errorf("archived last day: %+v", st.ArchivedLastDay)
	}
	if len(st.SlowestHosts) != 2 || st.SlowestHosts[0].Host != "h" || st.SlowestHosts[0].MeanSec != 2 || st.SlowestHosts[0].Fetches != 4 {
		t.Errorf("slowest hosts: %+v", st.SlowestHosts)
	}
	if len(st.FrequentErrors) != 2 || st.FrequentErrors[0].Count != 5 {
		t.Errorf("frequent errors: %+v", st.FrequentErrors)
	}
	code, text, _ := runCLI(t, dir, "status")
	for _, w := range []string{"archived in the last day: 1", "slowest hosts:", "most frequent errors:", "503 Service Unavailable"} {
		if code != 0 || !strings.Contains(text, w) {
			t.Errorf("text status lacks %q:\n%s", w, text)
		}
	}
}
