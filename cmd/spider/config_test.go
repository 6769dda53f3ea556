package main

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// The example config must stay complete and valid: it decodes strictly, and
// its values are the built-in defaults, so it documents them truthfully.
func TestExampleConfig(t *testing.T) {
	cfg, err := LoadConfig("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
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
	os.WriteFile(path, []byte("delay = \"3s\"\nconcurrency = 7\nremove_archived = true\ncase_insensitive_names = true\nidle_writer = false\n[scope]\nrequisites = false\n[profile.fast]\nwindow = \"2h\"\nbatch = 3\n"), 0o644)
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
	if s.Window != 2*time.Hour || s.Batch != 9 || s.Delay != 3*time.Second || s.Concurrency != 7 || s.MaxLevel != 3 || !s.RemoveArchived || !s.CaseInsensitiveNames || s.Scope.Requisites || s.IdleWriter {
		t.Errorf("settings %+v: want window 2h (file), batch 9 (flag), delay 3s (file), concurrency 7 (file), max level 3 (default), remove archived (file), no idle writer (file)", s)
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
	if s.RemoveArchived || s.CaseInsensitiveNames || !s.Scope.Requisites || !s.IdleWriter {
		t.Errorf("defaults: remove_archived %v, case_insensitive_names %v, scope.requisites %v, idle_writer %v; want false, false, true, true",
			s.RemoveArchived, s.CaseInsensitiveNames, s.Scope.Requisites, s.IdleWriter)
	}
}

// TestIdleWriterSetting: by default a spider starts a helper to write its
// new files at idle priority (on Linux), and with idle_writer = false it
// writes them itself; both mirror every page.
func TestIdleWriterSetting(t *testing.T) {
	_, base := newSite(t, sitetest.Options{Topics: 30})
	for _, c := range []struct {
		conf   string
		helper bool
	}{{"", runtime.GOOS == "linux"}, {"idle_writer = false\n", false}} {
		dir := t.TempDir()
		conf := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(conf, []byte(c.conf), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out := spiderRun(t, dir, time.Minute, "--profile", "slow", "--config", conf, "--until-idle", "--delay", "0",
			"--start", base+"/", "-vv")
		if code != 0 {
			t.Fatalf("%q: exit %d:\n%s", c.conf, code, out)
		}
		// Whether the helper greets before a run this short ends depends
		// on the CPU it gets; that it was started does not.
		started := strings.Contains(out, "mirror writer started")
		if started != c.helper || !c.helper && !strings.Contains(out, "idle_writer = false") {
			t.Errorf("config %q: helper started %v, want %v; output:\n%s", c.conf, started, c.helper, out)
		}
		if !c.helper && strings.Contains(out, "mirror written by a helper process") {
			t.Errorf("config %q: a helper wrote the mirror; output:\n%s", c.conf, out)
		}
		es := readList(t, filepath.Join(dir, "spider.list"))
		checkMirror(t, filepath.Join(dir, "mirror"), es)
		if len(es) < 47 {
			t.Errorf("config %q: %d lines, want the site's 47 pages", c.conf, len(es))
		}
	}
}
