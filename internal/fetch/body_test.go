package fetch

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readBody returns the whole body whatever the announced length: right,
// short, long, none, or past the presize cap; and a read error with what
// came before it.
func TestReadBody(t *testing.T) {
	big := strings.Repeat("x", maxPresize+100)
	for _, tc := range []struct {
		name      string
		body      string
		announced int64
		allocs    float64 // at most, where checked
	}{
		{"exact", "hello, world", 12, 1},
		{"none", "hello, world", -1, 0},
		{"short", "hello, world", 5, 0},
		{"long", "hello", 1 << 10, 1},
		{"empty", "", 0, 0},
		{"over the cap", big, int64(len(big)), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readBody(iotest.HalfReader(strings.NewReader(tc.body)), tc.announced)
			if err != nil || string(got) != tc.body {
				t.Fatalf("readBody: %d bytes, %v; want %d bytes", len(got), err, len(tc.body))
			}
			if tc.allocs > 0 {
				r := strings.NewReader(tc.body)
				n := testing.AllocsPerRun(10, func() {
					r.Reset(tc.body)
					readBody(r, tc.announced)
				})
				if n > tc.allocs {
					t.Errorf("%v allocations, want at most %v", n, tc.allocs)
				}
			}
		})
	}
	boom := errors.New("boom")
	got, err := readBody(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(boom)), 100)
	if !errors.Is(err, boom) || !bytes.Equal(got, []byte("part")) {
		t.Errorf("failing reader: %q, %v", got, err)
	}
}
