package meta

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A writer holding the file makes others wait, and give up with ErrLocked
// after the timeout instead of hanging.
func TestLockedTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.meta")
	s := Open(path, 50*time.Millisecond)
	if err := s.Put([]Record{{URL: "http://a/"}}); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o644, nil) // another holder, by its own open file
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]Record{{URL: "http://b/"}}); !errors.Is(err, ErrLocked) {
		t.Errorf("Put while locked: %v, want ErrLocked", err)
	}
	if _, err := s.Get([]string{"http://a/"}); !errors.Is(err, ErrLocked) {
		t.Errorf("Get while locked: %v, want ErrLocked", err)
	}
	db.Close()
	if got, err := s.Get([]string{"http://a/"}); err != nil || len(got) != 1 {
		t.Errorf("Get after unlock: %v, %v", got, err)
	}
}
