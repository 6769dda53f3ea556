package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The politeness, scope and limit keys: file over defaults, flags over file.
func TestPoliteScopePrecedence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte(`robots = false
host_connections = 2
max_slow_down = "10m"
[scope]
exclude = ["/calendar/"]
skip_cgi = true
requisites = false
[limits]
max_link_level = 7
max_new_per_host = -1
`), 0o644)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newRunFlags()
	f.fs.Parse([]string{"--profile", "slow", "--no-robots=false", "--host-connections", "3"})
	s, err := f.resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Polite.Robots || s.Polite.HostConns != 3 || s.Polite.MaxSlowDown != 10*time.Minute || s.Fetch.MaxConnsPerHost != 3 {
		t.Errorf("politeness %+v (transport cap %d): want robots on (flag), 3 connections (flag) for the transport too, 10m (file)",
			s.Polite, s.Fetch.MaxConnsPerHost)
	}
	if !reflect.DeepEqual(s.Scope.Exclude, []string{"/calendar/"}) || !s.Scope.SkipCGI || s.Scope.Requisites ||
		s.Scope.Limits.MaxLevel != 7 || s.Scope.Limits.MaxURLLen != 2048 || s.NewPerHost != -1 {
		t.Errorf("scope %+v, new per host %d", s.Scope, s.NewPerHost)
	}
}

func TestPoliteScopeInvalid(t *testing.T) {
	tests := []struct{ toml, want string }{
		{"host_connections = 0\n", "host_connections must be 1 to 64"},
		{"max_slow_down = \"2h\"\n", "max_slow_down must be"},
		{"[scope]\nexclude = [\"a(b\"]\n", `exclude pattern "a(b"`},
		{"[scope]\ninclude = [\"[\"]\n", `include pattern "["`},
		{"[limits]\nmax_url_length = 10\n", "max_url_length must be 64 to 4096"},
		{"[limits]\nmax_link_level = 0\n", "max_link_level must be at least 1"},
		{"[limits]\nmax_new_per_host = 0\n", "max_new_per_host must be at least 1"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "c.toml")
		os.WriteFile(path, []byte(tt.toml), 0o644)
		cfg, err := LoadConfig(path)
		if err != nil {
			t.Errorf("%q: %v", tt.toml, err)
			continue
		}
		f := newRunFlags()
		f.fs.Parse([]string{"--profile", "fast"})
		_, err = f.resolve(cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want it to mention %q", tt.toml, err, tt.want)
		}
		if _, ok := err.(usageErr); !ok {
			t.Errorf("%q: %T is not a usage error (exit 2)", tt.toml, err)
		}
	}
}
