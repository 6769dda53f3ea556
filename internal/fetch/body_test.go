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
	page := strings.Repeat("<p>a paragraph of a page</p>\n", 400) // 11 KB
	for _, tc := range []struct {
		name      string
		body      string
		announced int64
		fewer     bool // fewer allocations than io.ReadAll
	}{
		{"exact", page, int64(len(page)), true},
		{"none", page, -1, false},
		{"short", page, 5, false},
		{"long", page, 2 * int64(len(page)), true},
		{"empty", "", 0, false},
		{"over the cap", big, int64(len(big)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readBody(iotest.HalfReader(strings.NewReader(tc.body)), tc.announced)
			if err != nil || string(got) != tc.body {
				t.Fatalf("readBody: %d bytes, %v; want %d bytes", len(got), err, len(tc.body))
			}
			if tc.fewer {
				r := strings.NewReader(tc.body)
				n := testing.AllocsPerRun(10, func() {
					r.Reset(tc.body)
					readBody(r, tc.announced)
				})
				all := testing.AllocsPerRun(10, func() {
					r.Reset(tc.body)
					io.ReadAll(r)
				})
				if n >= all {
					t.Errorf("%v allocations, io.ReadAll %v", n, all)
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
