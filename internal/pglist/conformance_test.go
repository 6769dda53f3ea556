package pglist

import (
	"context"
	"testing"

	"github.com/spider-mirror/spider/internal/listtest"
)

// The PostgreSQL store passes the list stores' conformance suite.
func TestConformance(t *testing.T) {
	dsn := testDSN(t)
	listtest.Run(t, listtest.Backend{
		New: func(t *testing.T) func(t *testing.T) listtest.Store {
			schema := testSchema(t, dsn)
			return func(t *testing.T) listtest.Store { return openTest(t, dsn, schema) }
		},
		Lock: func(t *testing.T, s listtest.Store, id string) (func(), error) {
			lk, err := s.(*Store).LockSpider(context.Background(), id)
			if err != nil {
				return nil, err
			}
			unlock := func() {
				if err := lk.Unlock(); err != nil {
					t.Error(err)
				}
			}
			return unlock, nil
		},
	})
}
