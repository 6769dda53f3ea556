package account

import (
	"fmt"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/list"
)

// BenchmarkTallyAdd measures the cost per line of the account: what a
// counting pass (internal/crawl) and spider status add to reading a line.
func BenchmarkTallyAdd(b *testing.B) {
	es := make([]list.Entry, 4096)
	for i := range es {
		mod := now.Add(-time.Duration(i) * time.Minute)
		es[i] = list.Entry{File: "h/p", Level: i % 6, State: list.Downloaded, Modified: mod, Due: mod.Add(2 * time.Hour),
			URL: fmt.Sprintf("http://host%d.example/p%d", i/1000, i)}
	}
	t := New([]claim.Profile{fast, slow}, now)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t.Add(&es[i%len(es)])
	}
}
