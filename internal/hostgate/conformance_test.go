package hostgate_test

import (
	"testing"

	"github.com/spider-mirror/spider/internal/gatetest"
	"github.com/spider-mirror/spider/internal/hostgate"
)

// The files of LIST.hosts.d pass the host pace's conformance suite.
func TestConformance(t *testing.T) {
	gatetest.Run(t, func(t *testing.T) func(t *testing.T, o hostgate.Options) gatetest.Gate {
		dir := t.TempDir()
		return func(t *testing.T, o hostgate.Options) gatetest.Gate {
			g, err := hostgate.Open(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			return g
		}
	})
}

// BenchmarkReserve measures one request's share of the protocol on files:
// a TryAcquire and a Release, each a locked read-modify-write of the
// host's file.
func BenchmarkReserve(b *testing.B) {
	g, err := hostgate.Open(b.TempDir(), hostgate.Options{Conns: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	gatetest.Reserve(b, g)
}
