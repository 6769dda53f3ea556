package list

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parallelism runs f with the pass reading lists in n sections.
func parallelism(t *testing.T, n int, f func()) {
	t.Helper()
	oldMin, oldSec := parallelMin, scanSections
	parallelMin, scanSections = 0, func() int { return n }
	defer func() { parallelMin, scanSections = oldMin, oldSec }()
	f()
}

// A pass reading the list in sections decides and writes exactly what a
// pass reading it in one piece does.
func TestParallelPassEqualsSequential(t *testing.T) {
	var b strings.Builder
	b.WriteString(Header + "\n")
	for i := 0; i < 3000; i++ {
		e := Entry{Level: i % 5, State: Found, URL: fmt.Sprintf("http://h/%d", i)}
		switch i % 4 {
		case 1:
			e.State, e.File, e.Modified = Downloaded, fmt.Sprintf("h/%d.html", i), t0.Add(-2*3600e9)
		case 2:
			e.Spider = "dead" // a crashed spider's claim
			e.State = Claimed
		case 3:
			if i%3 == 0 {
				b.WriteString("# a comment\n\n")
			}
		}
		b.Write(AppendLine(nil, &e, 24))
	}
	content := b.String()
	pass := func() *Cycle {
		c := &Cycle{Spider: "a", Now: t0, Pick: allPicker{40}}
		for i := 0; i < 3000; i += 7 {
			c.Add = append(c.Add, Add{URL: fmt.Sprintf("http://h/%d", i*2), Level: 3})
		}
		return c
	}
	run2 := func(sections int) (string, *Cycle, *Cycle) {
		l := listAt(t, content)
		var c1, c2 *Cycle
		parallelism(t, sections, func() {
			c1 = run(t, l, pass())
			c2 = &Cycle{Spider: "a", Now: t0, Pick: allPicker{10}}
			for _, e := range c1.Claimed {
				c2.Results = append(c2.Results, Result{URL: e.URL, State: Downloaded, File: "h/x.html", Modified: t0})
			}
			run(t, l, c2)
		})
		data, _ := os.ReadFile(l.Path())
		return string(data), c1, c2
	}
	seqFile, seq1, seq2 := run2(1)
	for _, n := range []int{2, 3, 4, 7} {
		parFile, par1, par2 := run2(n)
		if parFile != seqFile {
			t.Errorf("%d sections: the list differs from a sequential pass's", n)
		}
		if !reflect.DeepEqual(par1.Claimed, seq1.Claimed) || !reflect.DeepEqual(par2.Claimed, seq2.Claimed) {
			t.Errorf("%d sections: claimed differently", n)
		}
		s1, p1 := seq1.Stats, par1.Stats
		s1.HeldSec, s1.WaitSec, s1.ScanSec, s1.WriteSec = 0, 0, 0, 0
		p1.HeldSec, p1.WaitSec, p1.ScanSec, p1.WriteSec = 0, 0, 0, 0
		if s1 != p1 {
			t.Errorf("%d sections: stats %+v, sequential %+v", n, p1, s1)
		}
	}
	if seq1.Stats.TakenBack != 750 || seq2.Stats.Recorded != 40 {
		t.Errorf("sequential: %+v / %+v", seq1.Stats, seq2.Stats)
	}
}

// A malformed line is reported with its line number in the whole file,
// whichever section found it.
func TestParallelParseErrorLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(Header + "\n")
	for i := 0; i < 1000; i++ {
		if i == 900 {
			b.WriteString("- - 0 nonsense - http://h/bad\n")
			continue
		}
		fmt.Fprintf(&b, "- - 0 found - http://h/%d\n", i)
	}
	l := listAt(t, b.String())
	parallelism(t, 4, func() {
		err := l.Run(context.Background(), &Cycle{Spider: "a", Now: t0, Pick: allPicker{1}})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 902 || filepath.Base(pe.Path) != "urls.list" {
			t.Errorf("err = %v, want a ParseError at line 902", err)
		}
	})
}
