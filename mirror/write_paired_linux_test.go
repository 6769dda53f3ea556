//go:build linux

package mirror

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWriteAllPaired writes the groups of BenchmarkWriteAllSite with
// named temp files and with unnamed ones (O_TMPFILE, linkat) in turn, into
// two mirrors on the same file system, and reports each one's wall, user
// and system time per file: a comparison that a busy machine slows on both
// sides alike. "deleted" first creates and removes many files beside the
// mirrors, as a machine does that has just removed an old mirror (ext4
// without a journal then skips the inodes deleted in the last minute, one
// by one, whenever it allocates one, for either kind of file).
func BenchmarkWriteAllPaired(b *testing.B) {
	for _, deleted := range []int{0, 20000} {
		b.Run(fmt.Sprintf("deleted=%d", deleted), func(b *testing.B) {
			named, _ := openTemp(b)
			unnamed, _ := openTemp(b)
			if !unnamed.fast.anon {
				b.Skip("no unnamed files here")
			}
			named.fast.anon = false
			churn(b, deleted)
			page, img := make([]byte, 3000), make([]byte, 6000)
			file := func(i int) File {
				if i%2 == 0 {
					return File{fmt.Sprintf("h/s%d/t%d.html", i/2%20, i/2), page}
				}
				return File{fmt.Sprintf("h/s%d/img/%d.png", i/2%20, i/2), img}
			}
			var cost [2]struct{ wall, user, sys time.Duration }
			n, i := 0, 0
			for b.Loop() {
				group := make([]File, 64)
				for k := range group {
					group[k] = file(i)
					i++
				}
				for side, m := range []*Mirror{named, unnamed} {
					if n%2 == 1 {
						side, m = 1-side, []*Mirror{named, unnamed}[1-side]
					}
					u0, s0 := rusage(b)
					t0 := time.Now()
					for k, err := range m.WriteAll(group) {
						if err != nil {
							b.Fatal(group[k].Rel, err)
						}
					}
					cost[side].wall += time.Since(t0)
					u1, s1 := rusage(b)
					cost[side].user += u1 - u0
					cost[side].sys += s1 - s0
				}
				n++
			}
			files := float64(n * 64)
			for side, name := range []string{"named", "unnamed"} {
				b.ReportMetric(float64(cost[side].wall.Microseconds())/files, name+"-µs/file")
				b.ReportMetric(float64(cost[side].user.Microseconds())/files, name+"-user-µs/file")
				b.ReportMetric(float64(cost[side].sys.Microseconds())/files, name+"-sys-µs/file")
			}
		})
	}
}

// churn creates n small files in a new directory beside the test's and
// removes them.
func churn(b *testing.B, n int) {
	if n == 0 {
		return
	}
	dir := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
}

func rusage(b *testing.B) (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
