package meta_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/metatest"
)

// The file store passes the history stores' conformance suite.
func TestConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) metatest.Store {
		return meta.Open(filepath.Join(t.TempDir(), "l.meta"), 10*time.Second)
	})
}
