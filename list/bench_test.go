package list

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchWords make realistic ru.wikipedia-like titles: percent-encoded
// Cyrillic, about 120 bytes a line once padded.
var benchWords = []string{"Москва", "история", "Пушкин", "река", "список", "война", "город", "наука", "музыка", "фильм"}

func benchURL(i int) string {
	t := benchWords[i%10] + "_" + benchWords[(i/10)%10] + "_" + fmt.Sprint(i)
	return "https://ru.wikipedia.org/wiki/" + url.PathEscape(t)
}

// writeBenchList writes a list of n lines: most downloaded, some new.
func writeBenchList(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(Header + "\n")
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var buf []byte
	for i := 0; i < n; i++ {
		u := benchURL(i)
		e := Entry{Level: 1 + i%7, State: Downloaded, URL: u, Modified: base.Add(time.Duration(i%86400) * time.Second)}
		if i%10 == 0 {
			e.State, e.Modified = Found, time.Time{}
		} else {
			e.File = "ru.wikipedia.org/wiki/" + fmt.Sprint(i) + ".html"
		}
		buf = AppendLine(buf[:0], &e, len(u)+16)
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
}

// openBenchList writes a list of n lines and opens it; the benchmark's
// throughput is counted in list bytes.
func openBenchList(b *testing.B, n int) *List {
	path := filepath.Join(b.TempDir(), "bench.list")
	writeBenchList(b, path, n)
	l, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	return l
}

// oldestPicker claims the lines without a copy, lowest level first.
type oldestPicker struct{ max int }

func (p oldestPicker) Due(e *Entry) bool     { return e.Modified.IsZero() }
func (p oldestPicker) Less(a, b *Entry) bool { return a.Level < b.Level }
func (p oldestPicker) Max() int              { return p.max }

// BenchmarkCycle measures locked passes as a spider runs them, at 10^5
// and 10^6 lines: "merge" appends 1,000 found links (half already
// listed), "claim" claims 100 lines, "cycle" does both and records the
// 100 results of the previous pass. Each includes its fsyncs.
func BenchmarkCycle(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, mode := range []string{"merge", "claim", "cycle"} {
			b.Run(fmt.Sprintf("%s/lines=%d", mode, n), func(b *testing.B) {
				l := openBenchList(b, n)
				var prev []Entry
				next := n
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c := &Cycle{Spider: "bench", Now: time.Now()}
					if mode != "merge" {
						c.Pick = oldestPicker{100}
					}
					if mode != "claim" {
						for j := 0; j < 1000; j++ {
							if j%2 == 0 {
								c.Add = append(c.Add, Add{URL: benchURL(j * 97 % n), Level: 3})
							} else {
								c.Add = append(c.Add, Add{URL: benchURL(next), Level: 3})
								next++
							}
						}
					}
					if mode == "cycle" {
						for _, e := range prev {
							c.Results = append(c.Results, Result{URL: e.URL, State: Downloaded, File: "ru.wikipedia.org/x.html", Modified: c.Now})
						}
					}
					if err := l.Run(context.Background(), c); err != nil {
						b.Fatal(err)
					}
					if c.Stats.Rewrote {
						b.Fatal("pass rewrote the file")
					}
					prev = c.Claimed
				}
			})
		}
	}
}

// BenchmarkScan measures a read pass: parse every line, as status does.
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			l := openBenchList(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				count := 0
				if err := l.Scan(context.Background(), func(e *Entry) error { count++; return nil }); err != nil || count != n {
					b.Fatal(count, err)
				}
			}
		})
	}
}

// BenchmarkParseLine parses a line as the package writes it and the same
// line with hand-edited spacing.
func BenchmarkParseLine(b *testing.B) {
	e := Entry{File: "ru.wikipedia.org/wiki/123.html", Level: 3, State: Downloaded, Modified: time.Unix(1.7e9, 0), URL: benchURL(12345)}
	line := AppendLine(nil, &e, len(e.URL)+16)
	line = line[:len(line)-1]
	spaced := []byte(strings.Join(strings.Fields(string(line)), "  "))
	for _, bc := range []struct {
		name string
		line []byte
	}{{"canonical", line}, {"spaced", spaced}} {
		b.Run(bc.name, func(b *testing.B) {
			var v view
			for i := 0; i < b.N; i++ {
				if err := parseLine(bc.line, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
