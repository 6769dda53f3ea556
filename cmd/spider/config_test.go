package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The example config must stay complete and valid: it decodes strictly, and
// its values are the built-in defaults, so it documents them truthfully.
func TestExampleConfig(t *testing.T) {
	cfg, err := LoadConfig("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	if keys := cfg.Obsolete(); len(keys) > 0 {
		t.Errorf("config.example.toml sets obsolete keys %v", keys)
	}
	for _, name := range []string{"fast", "slow"} {
		f := newRunFlags()
		if err := f.fs.Parse([]string{"--profile", name}); err != nil {
			t.Fatal(err)
		}
		fromFile, err := f.resolve(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		builtin, err := f.resolve(&Config{})
		if err != nil {
			t.Fatal(err)
		}
		fromFile.Starts, builtin.Starts = nil, nil
		if got, want := *fromFile, *builtin; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: config.example.toml gives\n%+v\nbuilt-in defaults are\n%+v", name, got, want)
		}
	}
}

// The example's keys that follow others are commented out, with the
// defaults they have: uncommented they change nothing, and a copy whose
// top-level delay and fast window a user edited carries them through to
// both profiles (the profiles' own delay lines and the slow shortest once
// pinned the old values).
func TestExampleConfigFollows(t *testing.T) {
	b, err := os.ReadFile("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	example := string(b)
	following := regexp.MustCompile(`(?m)^# ((concurrency|host_connections|longest|shortest|delay) = .*)$`)
	if n := len(following.FindAllString(example, -1)); n != 10 {
		t.Errorf("%d commented-out keys that follow others, want 10", n)
	}
	uncommented := following.ReplaceAllString(example, "$1")
	for _, name := range []string{"fast", "slow"} {
		args := []string{"--profile", name}
		got, _ := resolveWith(t, uncommented, args)
		want, _ := resolveWith(t, "", args)
		got.Starts = nil
		if !reflect.DeepEqual(*got, *want) {
			t.Errorf("%s: the example uncommented gives\n%+v\nbuilt-in defaults are\n%+v", name, *got, *want)
		}
	}
	edited := strings.Replace(example, "\ndelay = \"1s\"", "\ndelay = \"200ms\"", 1)
	edited = regexp.MustCompile(`(?s)(\[profile\.fast\].*?)\nwindow = "1h"`).ReplaceAllString(edited, "$1\nwindow = \"2h\"")
	if edited == example || !strings.Contains(edited, "window = \"2h\"") || !strings.Contains(edited, "delay = \"200ms\"") {
		t.Fatal("the example's top-level delay or fast window was not found to edit")
	}
	for _, tc := range []struct {
		name              string
		shortest, longest time.Duration
	}{{"fast", time.Hour, 24 * time.Hour}, {"slow", time.Hour, 24 * time.Hour}} {
		s, _ := resolveWith(t, edited, []string{"--profile", tc.name})
		if s.Delay != 200*time.Millisecond || s.Concurrency != 4 || s.Shortest != tc.shortest || s.Longest != tc.longest {
			t.Errorf("%s with the example edited: delay %v, concurrency %d, shortest %v, longest %v; want 200ms, 4, %v, %v",
				tc.name, s.Delay, s.Concurrency, s.Shortest, s.Longest, tc.shortest, tc.longest)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, toml, want string
	}{
		{"unknown key", "lsit = \"x\"\n", "unknown key lsit"},
		{"unknown nested key", "[profile.fast]\nwindw = \"1h\"\n", "unknown key profile.fast.windw"},
		{"bad duration", "delay = \"soon\"\n", "soon"},
		{"bad syntax", "list = \n", "config"},
		{"bad profile name", "[profile.\"a b\"]\n", "invalid profile name"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "c.toml")
		os.WriteFile(path, []byte(tt.toml), 0o644)
		_, err := LoadConfig(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tt.name, err, tt.want)
		}
		if _, ok := err.(usageErr); !ok {
			t.Errorf("%s: %T is not a usage error (exit 2)", tt.name, err)
		}
	}
}

func TestPrecedence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte("delay = \"3s\"\nconcurrency = 7\nremove_archived = true\ncase_insensitive_names = true\n[scope]\nrequisites = false\n[profile.fast]\nwindow = \"2h\"\nbatch = 3\n"), 0o644)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newRunFlags()
	f.fs.Parse([]string{"--profile", "fast", "--batch", "9"})
	s, err := f.resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Window != 2*time.Hour || s.Batch != 9 || s.Delay != 3*time.Second || s.Concurrency != 7 || s.MaxLevel != 3 || !s.RemoveArchived || !s.CaseInsensitiveNames || s.Scope.Requisites {
		t.Errorf("settings %+v: want window 2h (file), batch 9 (flag), delay 3s (file), concurrency 7 (file), max level 3 (default), remove archived (file)", s)
	}
}

// TestMirrorDefaults: archived copies are kept with a banner, names are
// the default layout, requisites on other hosts are mirrored.
func TestMirrorDefaults(t *testing.T) {
	f := newRunFlags()
	f.fs.Parse([]string{"--profile", "slow"})
	s, err := f.resolve(&Config{})
	if err != nil {
		t.Fatal(err)
	}
	if s.RemoveArchived || s.CaseInsensitiveNames || !s.Scope.Requisites {
		t.Errorf("defaults: remove_archived %v, case_insensitive_names %v, scope.requisites %v; want false, false, true",
			s.RemoveArchived, s.CaseInsensitiveNames, s.Scope.Requisites)
	}
}

// TestObsoleteKey: a config file that sets idle_writer (the helper that
// wrote the mirror at idle priority, removed) or confirm_gone (the wait
// between two 404s, which archive_span replaced) still loads, and the
// spider warns once that the key can be removed; without it, no warning.
func TestObsoleteKey(t *testing.T) {
	for conf, key := range map[string]string{
		"idle_writer = false\n":   "key=idle_writer",
		"confirm_gone = \"1m\"\n": `key="confirm_gone (archive_span replaces it)"`,
		"delay = \"1s\"\n":        "",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "c.toml"), []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		// No start URL: the spider stops after loading the config.
		code, _, stderr := runCLI(t, dir, "--profile", "slow", "--config", "c.toml")
		if code != 2 || !strings.Contains(stderr, "nothing to crawl") {
			t.Fatalf("%q: exit %d, stderr %q; want 2 and nothing to crawl", conf, code, stderr)
		}
		want, warned := 0, 0
		if key != "" {
			want = 1
			warned = strings.Count(stderr, "level=WARN msg=\"obsolete config key ignored; it can be removed\" "+key+" config=c.toml")
		}
		if warned != want || strings.Count(stderr, "WARN") != want {
			t.Errorf("%q: %d warnings, want %d; stderr:\n%s", conf, warned, want, stderr)
		}
	}
}

// TestRevisitBounds: a page seen not to change is refreshed at least every
// slow window by either profile unless longest is set, so the slow
// profile's promise (every page within its window) holds by default.
func TestRevisitBounds(t *testing.T) {
	tests := []struct {
		name              string
		toml              string
		args              []string
		longest, shortest time.Duration
	}{
		{"fast defaults: a hub polled twice a fast window", "", []string{"--profile", "fast"}, 24 * time.Hour, 30 * time.Minute},
		{"slow defaults", "", []string{"--profile", "slow"}, 24 * time.Hour, 30 * time.Minute},
		{"slow window by flag", "", []string{"--profile", "slow", "--window", "5s"}, 5 * time.Second, time.Second * 5},
		{"fast follows the slow window of the config", "[profile.slow]\nwindow = \"12h\"\n", []string{"--profile", "fast"}, 12 * time.Hour, 30 * time.Minute},
		{"longest set", "", []string{"--profile", "slow", "--longest", "336h"}, 336 * time.Hour, 30 * time.Minute},
		{"config longest below a flag window", "[profile.fast]\nlongest = \"2h\"\n", []string{"--profile", "fast", "--window", "3h"}, 3 * time.Hour, 90 * time.Minute},
		// config.example.toml's shortest, and a refresh of everything with short windows (README):
		{"config shortest above a flag window", "[profile.slow]\nshortest = \"30m\"\n", []string{"--profile", "slow", "--window", "10m", "--longest", "10m"}, 10 * time.Minute, 10 * time.Minute},
		{"no fast window to halve", "[profile.fast]\nwindow = \"0s\"\n", []string{"--profile", "slow"}, 24 * time.Hour, 24 * time.Hour},
	}
	for _, tt := range tests {
		s, cfg := resolveWith(t, tt.toml, tt.args)
		if s.Longest != tt.longest || s.Shortest != tt.shortest {
			t.Errorf("%s: longest %v, shortest %v; want %v, %v", tt.name, s.Longest, s.Shortest, tt.longest, tt.shortest)
		}
		fromStatus, err := configSettings(tt.args[1], cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(tt.args) == 2 && fromStatus.Longest != tt.longest {
			t.Errorf("%s: status sees longest %v, the spider runs with %v", tt.name, fromStatus.Longest, tt.longest)
		}
	}
}

// TestRequisiteMean: a requisite with no history is presumed to change
// once per the slow profile's stale bound (never more often than the slow
// window), whichever profile fetched it, so both spiders of a list agree.
func TestRequisiteMean(t *testing.T) {
	tests := []struct {
		name string
		toml string
		args []string
		want time.Duration
	}{
		{"fast, defaults: the slow stale bound", "", []string{"--profile", "fast"}, 336 * time.Hour},
		{"slow, defaults", "", []string{"--profile", "slow"}, 336 * time.Hour},
		{"slow, stale by flag", "", []string{"--profile", "slow", "--window", "90s", "--stale", "180s"}, 180 * time.Second},
		{"fast follows the config's slow stale bound", "[profile.slow]\nstale = \"48h\"\n", []string{"--profile", "fast"}, 48 * time.Hour},
		{"slow without a stale bound: its window", "", []string{"--profile", "slow", "--window", "12h", "--stale", "0s"}, 12 * time.Hour},
	}
	for _, tt := range tests {
		s, _ := resolveWith(t, tt.toml, tt.args)
		if got := requisiteMean(s); got != tt.want {
			t.Errorf("%s: requisites presumed to change every %v, want %v", tt.name, got, tt.want)
		}
	}
}

// resolveWith returns the settings a spider run with args resolves under
// a config file holding conf, and the config.
func resolveWith(t *testing.T, conf string, args []string) (*Settings, *Config) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newRunFlags()
	if err := f.fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	s, err := f.resolve(cfg)
	if err != nil {
		t.Fatalf("%q %v: %v", conf, args, err)
	}
	return s, cfg
}

// A list setting names PostgreSQL when it is a libpq URL or a libpq
// keyword/value string; anything else is a file's path.
func TestIsDSN(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want bool
	}{
		{"postgres://spider@db/mirror", true},
		{"postgresql://db/mirror?sslmode=verify-full", true},
		{"host=/run/postgresql dbname=mirror", true},
		{"dbname=mirror", true},
		{" service=spider", true},
		{"user=spider dbname=mirror", true},
		{"spider.list", false},
		{"lists/x=1.list", false},
		{"mode=fast.list", false},
		{"/srv/mirror/spider.list", false},
	} {
		if got := isDSN(tc.spec); got != tc.want {
			t.Errorf("isDSN(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}
