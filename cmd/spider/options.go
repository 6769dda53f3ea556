package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/internal/trap"
)

// profileDefaults are the built-in profiles. Any other profile must be
// defined in the config file, and starts from the slow defaults.
var profileDefaults = map[string]Settings{
	"fast": {Window: time.Hour, MaxLevel: 3, Stale: 0, Batch: 10},
	"slow": {Window: 24 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour, Batch: 50},
}

// defaultConcurrencyNoDelay is the default --concurrency with --delay 0.
const defaultConcurrencyNoDelay = 16

// Settings are the resolved settings of one run: defaults, then the config
// file, then the flags the user set.
type Settings struct {
	Profile     string
	SpiderID    string
	List        string // a path, or a PostgreSQL DSN (isDSN)
	Schema      string // a PostgreSQL list's schema
	State       string // a PostgreSQL list's local state directory
	Mirror      string
	MirrorSet   bool // Mirror came from the config or a flag: see chooseMirror
	Starts      []string
	Hosts       []string
	Window      time.Duration
	Longest     time.Duration // longest revisit interval of a page that rarely changes
	Shortest    time.Duration // shortest revisit interval of a page that changes often
	HubLevel    int           // pages this deep or shallower are compared for announcements: the fast profile's depth
	SlowWindow  time.Duration // the slow profile's window: how often requisites are refreshed
	SlowStale   time.Duration // the slow profile's stale bound; 0 = off
	MaxLevel    int
	Stale       time.Duration
	Batch       int
	Concurrency int
	Delay       time.Duration
	Lease       time.Duration
	For         time.Duration
	Cycles      int
	UntilIdle   bool
	Fetch       fetch.Options
	// 404 answers before archiving, and how far apart the first and the
	// last must be at least.
	ArchiveAfter int
	ArchiveSpan  time.Duration

	// The mirror as people browse it: config only, no flags.
	RemoveArchived       bool // remove_archived, default false
	CaseInsensitiveNames bool // case_insensitive_names, default false

	Polite     PoliteSettings
	Scope      scope.Config // Hosts unused: see Hosts
	Sitemaps   bool         // read sitemaps as hints ([scope] sitemaps, --no-sitemaps)
	NewPerHost int          // links taken per host per pass
	// Defences against machinery and endless URL spaces; a budget of 0
	// is off (crawl.Config.Traps takes -1 for that).
	Traps trap.Config
}

// PoliteSettings are the robots.txt and per-host politeness settings.
type PoliteSettings struct {
	Robots      bool          // obey robots.txt
	HostConns   int           // requests in flight to one host, all spiders of the list together
	MaxSlowDown time.Duration // cap on a 429/503 slow-down
}

// runFlags are the flags of the main command.
type runFlags struct {
	fs                                        *pflag.FlagSet
	profile, config, list, mirror, spiderID   string
	logFormat                                 string
	starts                                    []string
	window, longest, shortest, stale, delay   time.Duration
	forDur                                    time.Duration
	lease                                     time.Duration
	maxLevel, batch, concurrency, cycles, vrb int
	untilIdle, quiet, version, help           bool
	noRobots, noSitemaps                      bool
	hostConns                                 int
}

func newRunFlags() *runFlags {
	f := &runFlags{fs: pflag.NewFlagSet("spider", pflag.ContinueOnError)}
	fs := f.fs
	fs.SortFlags = false
	fs.StringVarP(&f.profile, "profile", "p", "", "profile to run: fast, slow, or one defined in the config")
	fs.StringVarP(&f.config, "config", "c", "", "TOML config `file` (see config.example.toml)")
	fs.StringVar(&f.list, "list", "", "shared list: a file `path`, or a PostgreSQL DSN (postgres://…, host=…) (default \"spider.list\")")
	fs.StringVar(&f.mirror, "mirror", "", "mirror `dir`ectory (default: the one the list records, else \"mirror\")")
	fs.StringArrayVar(&f.starts, "start", nil, "start `URL`, level 0 (repeatable)")
	fs.StringVar(&f.spiderID, "spider-id", "", "spider_id in the list (default: the profile name)")
	fs.DurationVar(&f.window, "window", 0, "re-fetch copies older than this; the change model revisits a page seen to change often sooner (down to --shortest) and one that rarely changes later (up to --longest) (fast 1h, slow 24h)")
	fs.DurationVar(&f.longest, "longest", 0, "re-fetch copies that rarely change at least this often (default: the slow window)")
	fs.DurationVar(&f.shortest, "shortest", 0, "re-fetch copies that change often at most this often; with --delay 0, every page within this, from half of it on (default: half the fast window)")
	fs.IntVar(&f.maxLevel, "max-level", 0, "claim no deeper than this level, -1 = no limit (fast 3, slow -1)")
	fs.DurationVar(&f.stale, "stale", 0, "claim copies older than this at any level, after first visits; 0 = off (slow 336h)")
	fs.IntVar(&f.batch, "batch", 0, "claim at most this many lines per pass (fast 10, slow 50)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "fetches at once (default 4; 16 with --delay 0)")
	fs.DurationVar(&f.delay, "delay", 0, "minimum time between requests to one host (default 1s)")
	fs.BoolVar(&f.noRobots, "no-robots", false, "ignore robots.txt (for your own site only)")
	fs.BoolVar(&f.noSitemaps, "no-sitemaps", false, "do not read the sites' sitemaps for pages and their lastmod")
	fs.IntVar(&f.hostConns, "host-connections", 0, "requests in flight to one host, all spiders of the list together (default 4)")
	fs.DurationVar(&f.lease, "lease", 0, "take back the claims of a spider silent this long (default 10m)")
	fs.DurationVar(&f.forDur, "for", 0, "stop after this long")
	fs.IntVar(&f.cycles, "cycles", 0, "stop after this many passes over the list")
	fs.BoolVar(&f.untilIdle, "until-idle", false, "stop once nothing is due for this profile and nothing is in flight")
	fs.CountVarP(&f.vrb, "verbose", "v", "say more (-v info, -vv debug)")
	fs.StringVar(&f.logFormat, "log-format", "text", "log lines as text or json")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print errors only")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return f
}

// resolve computes the settings: defaults < config file < flags set.
func (f *runFlags) resolve(cfg *Config) (*Settings, error) {
	s, err := defaultSettings(f.profile, cfg)
	if err != nil {
		return nil, err
	}
	s.applyConfig(cfg)
	f.apply(s)
	s.HubLevel = hubLevel(s, cfg)
	s.SlowWindow = slowWindow(s, cfg)
	s.SlowStale = slowStale(s, cfg)
	s.Longest = longest(s, f.fs.Changed("longest"))
	s.Shortest = shortest(s, cfg, f.fs.Changed("shortest"))
	// The transport never opens more connections to a host than the
	// shared cap allows the whole list.
	s.Fetch.MaxConnsPerHost = s.Polite.HostConns
	s.For, s.Cycles, s.UntilIdle = f.forDur, f.cycles, f.untilIdle
	if s.Delay == 0 {
		// No politeness: as many fetches as keep the machine busy, each
		// on its own connection.
		if cfg.Concurrency == nil && cfg.Profile[s.Profile].Concurrency == nil && !f.fs.Changed("concurrency") {
			s.Concurrency = defaultConcurrencyNoDelay
		}
		// The shared per-host cap follows, unless the user set it: without
		// a delay it would otherwise hold 16 fetches to 4 at a time.
		if cfg.HostConnections == nil && !f.fs.Changed("host-connections") {
			s.Polite.HostConns = max(s.Polite.HostConns, s.Concurrency)
		}
		s.Fetch.MaxConnsPerHost = max(s.Fetch.MaxConnsPerHost, s.Concurrency)
	}
	if s.Fetch.UserAgent == "" {
		s.Fetch.UserAgent = userAgent(s.SpiderID)
	}
	return s, s.validate()
}

// defaultSettings returns the defaults of profile name: a built-in
// profile's own, or the slow profile's for one defined in the config.
func defaultSettings(name string, cfg *Config) (*Settings, error) {
	if name == "" {
		return nil, usageErr{fmt.Errorf("no profile given"), "run spider --profile fast or spider --profile slow; spider --help lists the flags"}
	}
	def, builtin := profileDefaults[name]
	_, configured := cfg.Profile[name]
	if !builtin && !configured {
		return nil, usageErr{fmt.Errorf("invalid profile %q, must be one of (%s)", name, strings.Join(profileNames(cfg), "|")), "define other profiles under [profile.NAME] in the config file"}
	}
	if !builtin {
		def = profileDefaults["slow"]
	}
	s := def
	s.Profile, s.SpiderID = name, name
	s.List, s.Mirror = "spider.list", "mirror"
	s.Concurrency, s.Delay, s.Lease = 4, time.Second, 10*time.Minute
	s.ArchiveAfter, s.ArchiveSpan = crawl.DefaultArchiveAfter, crawl.DefaultArchiveSpan
	s.Fetch = fetch.Options{Timeout: 60 * time.Second, ConnectTimeout: 10 * time.Second,
		HeaderTimeout: 20 * time.Second, MaxBody: 32 << 20, MaxRedirects: 10, MaxConnsPerHost: 4, MinRate: 1024}
	s.Polite = PoliteSettings{Robots: true, HostConns: 4, MaxSlowDown: time.Hour}
	s.Scope = scope.Config{Requisites: true, Limits: scope.Limits{MaxURLLen: scope.DefaultMaxURLLen,
		MaxLevel: scope.DefaultMaxLevel, MaxRepeat: scope.DefaultMaxRepeat, MaxSegments: scope.DefaultMaxSegments}}
	s.NewPerHost = 5000
	s.Sitemaps = true
	s.Traps = trap.Config{SimilarPages: crawl.DefaultSimilarPages, DateURLs: crawl.DefaultDateURLs, QueryShapes: crawl.DefaultQueryShapes}
	return &s, nil
}

// applyConfig sets what the config file sets: its top-level keys, then
// those of the profile's own section.
func (s *Settings) applyConfig(cfg *Config) {
	setStr(&s.List, cfg.List)
	setStr(&s.Schema, cfg.Schema)
	setStr(&s.State, cfg.State)
	setStr(&s.Mirror, cfg.Mirror)
	s.MirrorSet = s.MirrorSet || cfg.Mirror != ""
	s.Starts = append(s.Starts, cfg.Start...)
	s.Hosts = append(s.Hosts, cfg.Hosts...)
	setPtr(&s.Concurrency, cfg.Concurrency)
	setDur(&s.Delay, cfg.Delay)
	setDur(&s.Lease, cfg.Lease)
	setPtr(&s.ArchiveAfter, cfg.ArchiveAfter)
	setDur(&s.ArchiveSpan, cfg.ArchiveSpan)
	setPtr(&s.RemoveArchived, cfg.RemoveArchived)
	setPtr(&s.CaseInsensitiveNames, cfg.CaseInsensitiveNames)
	fc := cfg.Fetch
	setStr(&s.Fetch.UserAgent, fc.UserAgent)
	setDur(&s.Fetch.Timeout, fc.Timeout)
	setDur(&s.Fetch.ConnectTimeout, fc.ConnectTimeout)
	setDur(&s.Fetch.HeaderTimeout, fc.HeaderTimeout)
	setPtr(&s.Fetch.MaxBody, fc.MaxBody)
	setPtr(&s.Fetch.MaxRedirects, fc.MaxRedirects)
	setPtr(&s.Fetch.MinRate, fc.MinRate)
	setPtr(&s.Polite.Robots, cfg.Robots)
	setPtr(&s.Polite.HostConns, cfg.HostConnections)
	setDur(&s.Polite.MaxSlowDown, cfg.MaxSlowDown)
	s.Scope.Include = append(s.Scope.Include, cfg.Scope.Include...)
	s.Scope.Exclude = append(s.Scope.Exclude, cfg.Scope.Exclude...)
	setPtr(&s.Scope.SkipCGI, cfg.Scope.SkipCGI)
	setPtr(&s.Scope.Requisites, cfg.Scope.Requisites)
	setPtr(&s.Sitemaps, cfg.Scope.Sitemaps)
	setPtr(&s.Scope.Limits.MaxURLLen, cfg.Limits.MaxURLLength)
	setPtr(&s.Scope.Limits.MaxLevel, cfg.Limits.MaxLinkLevel)
	setPtr(&s.Scope.Limits.MaxRepeat, cfg.Limits.MaxRepeat)
	setPtr(&s.NewPerHost, cfg.Limits.MaxNewPerHost)
	s.applyTraps(cfg)
	if p, ok := cfg.Profile[s.Profile]; ok {
		setStr(&s.SpiderID, p.SpiderID)
		setDur(&s.Window, p.Window)
		setDur(&s.Longest, p.Longest)
		setDur(&s.Shortest, p.Shortest)
		setPtr(&s.MaxLevel, p.MaxLevel)
		setDur(&s.Stale, p.Stale)
		setPtr(&s.Batch, p.Batch)
		setPtr(&s.Concurrency, p.Concurrency)
		setDur(&s.Delay, p.Delay)
	}
}

// apply sets what the flags the user set say.
func (f *runFlags) apply(s *Settings) {
	ch := f.fs.Changed
	if ch("list") {
		s.List = f.list
	}
	if ch("mirror") {
		s.Mirror, s.MirrorSet = f.mirror, true
	}
	if ch("start") {
		s.Starts = f.starts // flags replace the config's start URLs
	}
	if ch("spider-id") {
		s.SpiderID = f.spiderID
	}
	if ch("window") {
		s.Window = f.window
	}
	if ch("longest") {
		s.Longest = f.longest
	}
	if ch("shortest") {
		s.Shortest = f.shortest
	}
	if ch("max-level") {
		s.MaxLevel = f.maxLevel
	}
	if ch("stale") {
		s.Stale = f.stale
	}
	if ch("batch") {
		s.Batch = f.batch
	}
	if ch("concurrency") {
		s.Concurrency = f.concurrency
	}
	if ch("delay") {
		s.Delay = f.delay
	}
	if ch("lease") {
		s.Lease = f.lease
	}
	if ch("no-robots") {
		s.Polite.Robots = !f.noRobots
	}
	if ch("no-sitemaps") {
		s.Sitemaps = !f.noSitemaps
	}
	if ch("host-connections") {
		s.Polite.HostConns = f.hostConns
	}
}

func (s *Settings) validate() error {
	switch {
	case !validProfileName(s.SpiderID):
		return usageErr{fmt.Errorf("invalid spider id %q", s.SpiderID), "a spider id is 1-12 characters from [A-Za-z0-9_.-]"}
	case s.Window <= 0:
		return usageErr{fmt.Errorf("%s must be positive, got %v", knob("window"), s.Window), "the window is how often the profile revisits a page, as 1h (fast) or 24h (slow)"}
	case s.Longest > 0 && s.Longest < s.Window:
		return usageErr{fmt.Errorf("%s must not be shorter than the window, got %v with a window of %v", knob("longest"), s.Longest, s.Window), "leave --longest out to revisit at the window only"}
	case s.Shortest <= 0:
		return usageErr{fmt.Errorf("%s must be positive, got %v", knob("shortest"), s.Shortest), "leave --shortest out for half the fast window"}
	case s.Shortest > s.Window:
		return usageErr{fmt.Errorf("%s must not be longer than the window, got %v with a window of %v", knob("shortest"), s.Shortest, s.Window),
			"--shortest is the least time between two visits of a page seen to change often (half of it with --delay 0); leave it out for half the fast window"}
	case s.MaxLevel < -1:
		return usageErr{fmt.Errorf("%s must be -1 (no limit) or more, got %d", knob("max-level"), s.MaxLevel), ""}
	case s.Stale < 0:
		return usageErr{fmt.Errorf("%s must not be negative, got %v", knob("stale"), s.Stale), "0 turns the stale bound off"}
	case s.Batch < 1:
		return usageErr{fmt.Errorf("%s must be at least 1, got %d", knob("batch"), s.Batch), ""}
	case s.Concurrency < 1 || s.Concurrency > 256:
		return usageErr{fmt.Errorf("%s must be 1 to 256, got %d", knob("concurrency"), s.Concurrency), ""}
	case s.Delay < 0:
		return usageErr{fmt.Errorf("%s must not be negative, got %v", knob("delay"), s.Delay), "0 is for your own site: no pause between requests"}
	case s.For < 0:
		return usageErr{fmt.Errorf("--for must not be negative, got %v", s.For), "leave --for out to run until stopped"}
	case s.Lease < 10*time.Second:
		return usageErr{fmt.Errorf("--lease must be at least 10s, got %v", s.Lease), "the lease must outlast one fetch"}
	case s.ArchiveAfter < 1 || s.ArchiveAfter > 100:
		return usageErr{fmt.Errorf("archive_after must be 1 to 100, got %d", s.ArchiveAfter), "it counts the 404 answers before a page is archived"}
	case s.ArchiveSpan <= 0 || s.ArchiveSpan > 30*24*time.Hour:
		return usageErr{fmt.Errorf("archive_span must be more than 0 and at most 720h, got %v", s.ArchiveSpan), "it is how far apart the first and the last of those 404 answers must be at least"}
	case s.Polite.HostConns < 1 || s.Polite.HostConns > 64:
		return usageErr{fmt.Errorf("host_connections must be 1 to 64, got %d", s.Polite.HostConns), ""}
	case s.Polite.MaxSlowDown <= 0 || s.Polite.MaxSlowDown > time.Hour:
		return usageErr{fmt.Errorf("max_slow_down must be more than 0 and at most 1h, got %v", s.Polite.MaxSlowDown), ""}
	case s.Scope.Limits.MaxURLLen < 64 || s.Scope.Limits.MaxURLLen > 4096:
		return usageErr{fmt.Errorf("max_url_length must be 64 to 4096, got %d", s.Scope.Limits.MaxURLLen), ""}
	case s.Scope.Limits.MaxLevel < 1:
		return usageErr{fmt.Errorf("max_link_level must be at least 1, got %d", s.Scope.Limits.MaxLevel), ""}
	case s.Scope.Limits.MaxRepeat < 1:
		return usageErr{fmt.Errorf("max_repeat must be at least 1, got %d", s.Scope.Limits.MaxRepeat), ""}
	case s.NewPerHost < -1 || s.NewPerHost == 0:
		return usageErr{fmt.Errorf("max_new_per_host must be at least 1, or -1 for no limit, got %d", s.NewPerHost), ""}
	case s.Cycles < 0:
		return usageErr{fmt.Errorf("--cycles must not be negative, got %d", s.Cycles), ""}
	case s.List == "" || s.Mirror == "":
		return usageErr{fmt.Errorf("--list and --mirror must not be empty"), ""}
	}
	if err := s.checkTraps(); err != nil {
		return err
	}
	if err := s.checkFetch(); err != nil {
		return err
	}
	if _, err := scope.New(s.Scope); err != nil {
		return usageErr{err, "patterns are Go regular expressions (RE2 syntax) matched anywhere in the URL; anchor them with ^ and $"}
	}
	return nil
}

// knob names a setting that both a flag and the config file set, for an
// error about its value: "--max-level (max_level in the config)".
func knob(flag string) string {
	return "--" + flag + " (" + strings.ReplaceAll(flag, "-", "_") + " in the config)"
}

func profileNames(cfg *Config) []string {
	names := []string{"fast", "slow"}
	var extra []string
	for n := range cfg.Profile {
		if _, ok := profileDefaults[n]; !ok {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(names, extra...)
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func setPtr[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setDur(dst *time.Duration, v *Duration) {
	if v != nil {
		*dst = v.Duration
	}
}

func (s *Settings) profile() claim.Profile {
	return claim.Profile{Name: s.Profile, Window: s.Window, Shortest: s.Shortest, Longest: s.Longest, MaxLevel: s.MaxLevel, Stale: s.Stale, Batch: s.Batch}
}
