package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"
)

// Duration is a time.Duration written in Go syntax ("90s", "1h30m") in TOML.
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q", b)
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// ProfileConfig holds one profile's knobs. Unset fields keep the defaults.
type ProfileConfig struct {
	SpiderID    string    `toml:"spider_id"`
	Window      *Duration `toml:"window"`
	Longest     *Duration `toml:"longest"`
	Shortest    *Duration `toml:"shortest"`
	MaxLevel    *int      `toml:"max_level"`
	Stale       *Duration `toml:"stale"`
	Batch       *int      `toml:"batch"`
	Concurrency *int      `toml:"concurrency"`
	Delay       *Duration `toml:"delay"`
}

// FetchConfig holds the HTTP limits.
type FetchConfig struct {
	UserAgent      string    `toml:"user_agent"`
	Timeout        *Duration `toml:"timeout"`
	ConnectTimeout *Duration `toml:"connect_timeout"`
	HeaderTimeout  *Duration `toml:"header_timeout"`
	MaxBody        *int64    `toml:"max_body"`
	MaxRedirects   *int      `toml:"max_redirects"`
	MinRate        *int64    `toml:"min_rate"`
}

// Config is the TOML configuration file. See config.example.toml.
type Config struct {
	List        string                   `toml:"list"`
	Schema      string                   `toml:"schema"` // a PostgreSQL list's schema
	State       string                   `toml:"state"`  // a PostgreSQL list's local state directory
	Mirror      string                   `toml:"mirror"`
	Start       []string                 `toml:"start"`
	Hosts       []string                 `toml:"hosts"`
	Concurrency *int                     `toml:"concurrency"`
	Delay       *Duration                `toml:"delay"`
	Lease       *Duration                `toml:"lease"`
	Fetch       FetchConfig              `toml:"fetch"`
	Profile     map[string]ProfileConfig `toml:"profile"`

	// The mirror as people browse it; see config.example.toml.
	RemoveArchived       *bool `toml:"remove_archived"`
	CaseInsensitiveNames *bool `toml:"case_insensitive_names"`

	// Obsolete keys: still read, so that an old config file loads, and
	// ignored (Obsolete names them).
	IdleWriter  *bool     `toml:"idle_writer"`  // the mirror was written by a helper process at idle priority
	ConfirmGone *Duration `toml:"confirm_gone"` // the wait between two 404s; archive_span replaced it

	// When a 404 archives: see crawl.Config.
	ArchiveAfter *int      `toml:"archive_after"`
	ArchiveSpan  *Duration `toml:"archive_span"`

	// Politeness and robots.txt, scope, limits (see config.example.toml).
	Robots          *bool        `toml:"robots"`
	HostConnections *int         `toml:"host_connections"`
	MaxSlowDown     *Duration    `toml:"max_slow_down"`
	Scope           ScopeConfig  `toml:"scope"`
	Limits          LimitsConfig `toml:"limits"`
}

// ScopeConfig narrows or widens which links are followed.
type ScopeConfig struct {
	Include    []string `toml:"include"`
	Exclude    []string `toml:"exclude"`
	SkipCGI    *bool    `toml:"skip_cgi"`
	Requisites *bool    `toml:"requisites"`
	Sitemaps   *bool    `toml:"sitemaps"` // read the sites' sitemaps as hints
	// Families of site machinery followed all the same (trap.Families).
	Follow []string `toml:"follow"`
}

// LimitsConfig bounds links, against spider traps.
type LimitsConfig struct {
	MaxURLLength  *int `toml:"max_url_length"`
	MaxLinkLevel  *int `toml:"max_link_level"`
	MaxRepeat     *int `toml:"max_repeat"`
	MaxSegments   *int `toml:"max_segments"`
	MaxNewPerHost *int `toml:"max_new_per_host"`
	// Budgets per URL pattern (crawl.Config.Traps); 0 = off.
	SimilarPages *int `toml:"similar_pages"`
	DateURLs     *int `toml:"date_urls"`
	QueryShapes  *int `toml:"query_shapes"`
}

// LoadConfig reads a TOML config file strictly: an unknown key is an error,
// so a typo never silently falls back to a default.
func LoadConfig(path string) (*Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, usageErr{fmt.Errorf("config %s: %s", path, pe.Error()), "see config.example.toml for the syntax"}
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr{fmt.Errorf("config %s does not exist", path), "pass --config with the path of an existing file, or leave it out"}
		}
		return nil, usageErr{fmt.Errorf("config %s: %w", path, err), ""}
	}
	if und := md.Undecoded(); len(und) > 0 {
		var keys []string
		for _, k := range und {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		return nil, usageErr{fmt.Errorf("config %s: unknown key %s", path, strings.Join(keys, ", ")),
			"config.example.toml lists every key"}
	}
	for name, p := range c.Profile {
		if !validProfileName(name) {
			return nil, usageErr{fmt.Errorf("config %s: invalid profile name %q", path, name), "profile names are 1-12 characters from [A-Za-z0-9_.-], not starting with - or ."}
		}
		if p.SpiderID != "" && !validProfileName(p.SpiderID) {
			return nil, usageErr{fmt.Errorf("config %s: profile %s: invalid spider_id %q", path, name, p.SpiderID), "a spider_id is 1-12 characters from [A-Za-z0-9_.-]"}
		}
	}
	return &c, nil
}

// Obsolete returns the keys set in c that no longer do anything.
func (c *Config) Obsolete() []string {
	var keys []string
	if c.IdleWriter != nil {
		keys = append(keys, "idle_writer")
	}
	if c.ConfirmGone != nil {
		keys = append(keys, "confirm_gone (archive_span replaces it)")
	}
	return keys
}

func validProfileName(s string) bool {
	if s == "" || len(s) > 12 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return s[0] != '-' && s[0] != '.'
}

// listRefOf returns the list a subcommand works on: --list if given, else
// the config file's list, else spider.list; for a PostgreSQL list, with
// the config's schema and state.
func listRefOf(fs *pflag.FlagSet, config, listFlag string) (listRef, error) {
	spec := "spider.list"
	cfg := &Config{}
	if config != "" {
		var err error
		if cfg, err = LoadConfig(config); err != nil {
			return listRef{}, err
		}
		setStr(&spec, cfg.List)
	}
	if fs.Changed("list") {
		spec = listFlag
	}
	return newListRef(spec, cfg.Schema, cfg.State), nil
}

// mirrorDirOf returns the mirror directory a subcommand works on: the
// --mirror flag's, the config file's, or the one recorded beside the list
// (readMirror; listPath is listRef.sidePath).
func mirrorDirOf(fs *pflag.FlagSet, config, mirrorFlag, listPath string) (string, error) {
	dir := ""
	if config != "" {
		cfg, err := LoadConfig(config)
		if err != nil {
			return "", err
		}
		setStr(&dir, cfg.Mirror)
	}
	if fs.Changed("mirror") {
		dir = mirrorFlag
	}
	return readMirror(listPath, dir)
}

// requireList fails with a hint unless the list at path exists.
func requireList(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return usageErr{fmt.Errorf("list %s does not exist", path), "pass --list with the path your spiders use"}
	}
	return nil
}

// writeJSON writes v indented, for a subcommand's --json.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
