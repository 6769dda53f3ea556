package crawl

import (
	"context"
	"time"

	"github.com/spider-mirror/spider/list"
)

// Store is the list a spider shares with the others: a file (*list.List)
// or a database (*pglist.Store). The engine needs its passes, its
// heartbeat between passes, a read of its lines (fetching ahead leaves the
// visited ones alone: known.go), the statuses the spiders published
// (capped traps carry over: traps.go), and a local path the files it keeps
// beside the list on this machine are named from (the fetch history, the
// host pace, the account series): for a file, the file's own path.
type Store interface {
	Run(ctx context.Context, c *list.Cycle) error
	Beat(ctx context.Context, spider string, now time.Time) error
	Scan(ctx context.Context, fn func(e *list.Entry) error) error
	Statuses(ctx context.Context) ([]list.SpiderStatus, error)
	StatePath() string
}

// chunkScanner is a store that reads its lines in chunks, each under a
// lock of its own, so that a long read does not hold up other spiders'
// passes: the file. A store whose Scan holds up no pass (a database
// snapshot) is read with Scan.
type chunkScanner interface {
	ScanChunk(ctx context.Context, off int64, max int, fn func(e *list.Entry) error) (int64, error)
}
