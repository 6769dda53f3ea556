package list

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// FuzzMerge runs random sequences of passes (adds from a small pool of
// URLs at random levels, results for the lines held, claims of random
// batch sizes) and checks every pass against a model: which lines exist,
// in what order, at which level and state, and which lines are claimed.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0})
	f.Add([]byte("add many then claim and record, repeatedly"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		l, err := Open(filepath.Join(t.TempDir(), "m.list"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		type line struct {
			Entry
			order int
		}
		model := map[string]*line{}
		var held []string
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i], ops[i+1]
			now = now.Add(time.Minute)
			c := &Cycle{Spider: "a", Now: now}
			// Adds: up to 4 URLs from a pool of 16, levels from arg.
			for k := 0; k < int(op%5); k++ {
				u := fmt.Sprintf("http://h/%d", (int(arg)+k*7)%16)
				c.Add = append(c.Add, Add{URL: u, Level: int(arg>>4) % 4})
			}
			// Results for the lines held: states from op.
			states := []State{0, Downloaded, Archived, Error, Disallowed}
			for k, u := range held {
				c.Results = append(c.Results, Result{URL: u, State: states[(int(op>>3)+k)%len(states)], File: "h/f", Modified: now})
			}
			c.Pick = allPicker{int(op>>5) % 4}
			if err := l.Run(context.Background(), c); err != nil {
				t.Fatalf("pass %d: %v", i/2, err)
			}
			// The model of the same pass.
			for _, r := range c.Results {
				m := model[r.URL]
				m.Spider = ""
				if r.State == 0 {
					if m.State == Claimed {
						m.State = Found
					}
					continue
				}
				m.State, m.File, m.Modified, m.Due = r.State, "h/f", now, time.Time{}
			}
			// A URL new in this pass gets the lowest level of its adds; a
			// listed URL keeps its line, moved up to the lowest level of
			// its adds if that is lower.
			for _, a := range c.Add {
				if m := model[a.URL]; m == nil {
					model[a.URL] = &line{Entry{Level: a.Level, State: Found, Due: now.UTC().Truncate(time.Second), URL: a.URL}, len(model)}
				} else if a.Level < m.Level {
					m.Level = a.Level
				}
			}
			var due []*line
			for _, m := range model {
				if m.Spider == "" && (m.State == Found || m.State == Error) {
					due = append(due, m)
				}
			}
			sort.Slice(due, func(x, y int) bool {
				if due[x].Level != due[y].Level {
					return due[x].Level < due[y].Level
				}
				return due[x].order < due[y].order
			})
			held = held[:0]
			for k := 0; k < len(due) && k < int(op>>5)%4; k++ {
				due[k].Spider = "a"
				if due[k].State == Found {
					due[k].State = Claimed
				}
				held = append(held, due[k].URL)
			}
			if len(c.Claimed) != len(held) {
				t.Fatalf("pass %d: claimed %d, model %d", i/2, len(c.Claimed), len(held))
			}
			for k := range held {
				if c.Claimed[k].URL != held[k] {
					t.Fatalf("pass %d: claimed %s, model %s", i/2, c.Claimed[k].URL, held[k])
				}
			}
			got := entries(t, l)
			if len(got) != len(model) {
				t.Fatalf("pass %d: %d lines, model %d", i/2, len(got), len(model))
			}
			for k, e := range got {
				m := model[e.URL]
				if m == nil || m.order != k || m.Entry != e {
					t.Fatalf("pass %d: line %d is %+v, model %+v", i/2, k, e, m)
				}
			}
		}
	})
}
