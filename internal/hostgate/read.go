package hostgate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// CrawlDelay returns the Crawl-delay a spider published for host in dir
// (SetCrawlDelay) if it is still valid at now, and 0 if none is known. It
// reads without the lock, for a reader that changes nothing (spider
// status): the record is written with one pwrite, and one that does not
// parse reads as none.
func CrawlDelay(dir, host string, now time.Time) time.Duration {
	b, err := os.ReadFile(filepath.Join(dir, FileName(host)))
	if err != nil {
		return 0
	}
	var r Record
	if json.Unmarshal(b, &r) != nil {
		return 0
	}
	return r.CrawlDelayAt(now)
}
