package main

import (
	"os"
	"path/filepath"
	"reflect"
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
