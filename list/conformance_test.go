package list_test

import (
	"path/filepath"
	"testing"

	"github.com/spider-mirror/spider/internal/listtest"
	"github.com/spider-mirror/spider/list"
)

// The file store passes the list stores' conformance suite.
func TestConformance(t *testing.T) {
	listtest.Run(t, listtest.Backend{
		New: func(t *testing.T) func(t *testing.T) listtest.Store {
			path := filepath.Join(t.TempDir(), "LIST")
			return func(t *testing.T) listtest.Store {
				l, err := list.Open(path, list.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
		},
		Lock: func(t *testing.T, s listtest.Store, id string) (func(), error) {
			lk, err := list.LockSpider(s.(*list.List).Path(), id)
			if err != nil {
				return nil, err
			}
			var once bool
			unlock := func() {
				if !once {
					once = true
					if err := lk.Unlock(); err != nil {
						t.Error(err)
					}
				}
			}
			t.Cleanup(unlock)
			return unlock, nil
		},
	})
}
