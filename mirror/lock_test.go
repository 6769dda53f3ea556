package mirror

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestLockExcludes: goroutines that each take the lock through their own
// open file increment a counter file read-modify-write; none is lost.
func TestLockExcludes(t *testing.T) {
	m, err := Open(filepath.Join(t.TempDir(), "m"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const workers, rounds = 4, 25
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				unlock, err := m.Lock(".spider/lock")
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := m.ReadFile(".spider/count")
				if err := m.Write(".spider/count", append(b, 'x')); err != nil {
					t.Error(err)
				}
				unlock()
			}
		})
	}
	wg.Wait()
	b, err := m.ReadFile(".spider/count")
	if err != nil || len(b) != workers*rounds {
		t.Errorf("count %d (%v), want %d", len(b), err, workers*rounds)
	}
	if _, err := m.Lock("../escape"); err == nil {
		t.Error("Lock accepted a name outside the root")
	}
}
