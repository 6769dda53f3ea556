package crawl

import (
	"log/slog"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/meta"
)

// The defaults of Config, in one place. cmd/spider passes what the user
// set; a zero value here means "the default".
const (
	// DefaultMaxNewPerHost is Config.MaxNewPerHost's default: distinct
	// links taken per host in one pass, but those the spider took in an
	// earlier one, against pages that spawn endless new URLs.
	DefaultMaxNewPerHost = 5000
	defaultMaxLinks      = 5000             // links taken from one page
	defaultStopGrace     = 10 * time.Second // fetches in flight finish within this on stop
	defaultAheadBytes    = 32 << 20         // copies fetched ahead held in memory
	// While the mirror cannot be written (disk full), the spider backs
	// off this long, then twice that, ... and gives up after
	// defaultStorageTries rounds: 1+2+4+8+16 s.
	defaultStorageBackoff = time.Second
	defaultStorageTries   = 5
	// DefaultSimilarPages is Config.Traps.SimilarPages's default: pages
	// of one URL pattern near-identical to its earlier ones before links
	// into the pattern are no longer taken (an empty calendar's days).
	DefaultSimilarPages = 50
	// DefaultDateURLs is Config.Traps.DateURLs's default: URLs of one
	// date-like pattern (a calendar's days, day archives) taken at most.
	DefaultDateURLs = 500
	// DefaultQueryShapes is Config.Traps.QueryShapes's default: sets of
	// query keys taken on one path (faceted listings, appended
	// parameters).
	DefaultQueryShapes = 50
	// aheadPerWorker sets Config.Ahead for an unpaced spider: enough
	// links fetched ahead to keep every worker busy through a pass.
	aheadPerWorker = 256
)

// The cost of reading one host's sitemaps (sitemaps.go) at most, all its
// files together, each file within the protocol's own limits (50,000
// URLs, 50 MB): a hostile sitemap (a gzip bomb, millions of URLs, an
// index of thousands of files) costs no more than this, and a large
// site's newest sitemaps are read first. After a transient failure a
// sitemap is read again after sitemapRetry, else after
// Config.SitemapEvery (default: the profile's window, 1 h to 24 h).
const (
	sitemapFiles = 50
	sitemapURLs  = 200_000
	sitemapBytes = 200 << 20
	sitemapRetry = 15 * time.Minute
)

// A page answering 404 is archived after DefaultArchiveAfter such
// answers, the first and the last at least DefaultArchiveSpan apart (the
// fast profile's window), with no success between: a 404 for a few
// minutes (a deploy, a flapping backend) archives nothing. Nutch and
// StormCrawler likewise wait for several definite answers spread over
// hours. A 410 archives at once.
const (
	DefaultArchiveAfter = 3
	DefaultArchiveSpan  = time.Hour
)

// withDefaults returns cfg with every zero value replaced by its default.
// listPath locates the fetch history (LIST.meta) when cfg.History is nil.
func withDefaults(cfg Config, listPath string) Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Concurrency = max(cfg.Concurrency, 1)
	if cfg.MaxLinks == 0 {
		cfg.MaxLinks = defaultMaxLinks
	}
	if cfg.MaxNewPerHost == 0 {
		cfg.MaxNewPerHost = DefaultMaxNewPerHost
	}
	for _, b := range []struct {
		v   *int
		def int
	}{{&cfg.Traps.SimilarPages, DefaultSimilarPages}, {&cfg.Traps.DateURLs, DefaultDateURLs}, {&cfg.Traps.QueryShapes, DefaultQueryShapes}} {
		if *b.v == 0 {
			*b.v = b.def
		}
	}
	if cfg.ArchiveAfter <= 0 {
		cfg.ArchiveAfter = DefaultArchiveAfter
	}
	if cfg.ArchiveSpan <= 0 {
		cfg.ArchiveSpan = DefaultArchiveSpan
	}
	if cfg.History == nil {
		cfg.History = meta.Open(listPath+meta.Suffix, time.Minute)
	}
	switch {
	case cfg.Ahead < 0:
		cfg.Ahead = 0
	case cfg.Ahead == 0 && cfg.Delay == 0:
		// Fetching ahead is for a first mirror at full speed; a paced
		// spider could not use more than its host allows anyway.
		cfg.Ahead = aheadPerWorker * cfg.Concurrency
	}
	if cfg.AheadBytes == 0 {
		cfg.AheadBytes = defaultAheadBytes
	}
	if cfg.StorageBackoff <= 0 {
		cfg.StorageBackoff = defaultStorageBackoff
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = defaultStopGrace
	}
	if cfg.Flush == 0 {
		// Results wait at most a quarter window for their pass.
		cfg.Flush = clamp(cfg.Profile.Window/4, 200*time.Millisecond, 10*time.Second)
	}
	return cfg
}

func clamp(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }

// idlePoll is how long an idle spider waits at most before it looks at
// the list again, since other spiders add lines and lower levels too: a
// quarter of its window, from 100 ms to 30 s.
func (c *Config) idlePoll() time.Duration {
	return clamp(c.Profile.Window/4, 100*time.Millisecond, 30*time.Second)
}

// hintKeep is how long a spider of profile p sends an announcement
// again (hints.go): twice its shortest interval, within its window. With
// the default shortest, half the fast window, that is the fast window:
// the span within which an announced page is promised to the mirror.
func hintKeep(p claim.Profile) time.Duration {
	shortest, window, _ := p.Intervals()
	return min(2*shortest, window)
}

// DefaultLockWait is how long a spider waits for the list's lock before
// it warns, naming the holder; it warns again each time the wait doubles.
// A pass holds the lock for the time it takes to read the list, so a wait
// this long means a holder that is stopped or stuck.
const DefaultLockWait = 10 * time.Second

// DefaultStateDir is the directory, relative to the working directory,
// under which a spider keeps the files of a list in PostgreSQL that stay
// on its machine (the fetch history, the host pace, the account series,
// the mirror's record), one subdirectory per schema, unless the
// configuration says otherwise (state).
const DefaultStateDir = "spider-state"
