package mirror

import (
	"fmt"
	"testing"
)

// BenchmarkWrite is one page written durably on its own: temp file, fsync,
// rename, directory fsync.
func BenchmarkWrite(b *testing.B) {
	m, _ := openTemp(b)
	data := make([]byte, 2500)
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		if err := m.Write(fmt.Sprintf("h/topic/%d-slug.html", i), data); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkCommitGroup is pages staged by a crawl's workers and committed
// in groups of 64, as the crawl does before each pass; the time is per page.
func BenchmarkCommitGroup(b *testing.B) {
	m, _ := openTemp(b)
	data := make([]byte, 2500)
	b.SetBytes(int64(len(data)))
	var group []*Staged
	i := 0
	for b.Loop() {
		s, err := m.Stage(fmt.Sprintf("h/topic/%d-slug.html", i), data)
		if err != nil {
			b.Fatal(err)
		}
		i++
		if group = append(group, s); len(group) == 64 {
			commit(b, m, group)
			group = group[:0]
		}
	}
	commit(b, m, group)
}

// BenchmarkGroup is BenchmarkCommitGroup through a Group, which keeps the
// directories open: as the crawl writes its pages.
func BenchmarkGroup(b *testing.B) {
	m, _ := openTemp(b)
	data := make([]byte, 2500)
	b.SetBytes(int64(len(data)))
	g := m.Group()
	n, i := 0, 0
	for b.Loop() {
		if _, err := g.Stage(fmt.Sprintf("h/topic/%d-slug.html", i), data); err != nil {
			b.Fatal(err)
		}
		i++
		if n++; n == 64 {
			groupCommit(b, g)
			g, n = m.Group(), 0
		}
	}
	groupCommit(b, g)
}

func groupCommit(b *testing.B, g *Group) {
	for _, err := range g.Commit() {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStage is the part of a page's write that a worker does: create
// and lock a temp file in a directory of many files, write it.
func BenchmarkStage(b *testing.B) {
	m, _ := openTemp(b)
	data := make([]byte, 2500)
	var all []*Staged
	i := 0
	for b.Loop() {
		s, err := m.Stage(fmt.Sprintf("h/topic/%d-slug.html", i), data)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, s)
		i++
	}
	b.StopTimer()
	for _, s := range all {
		m.Discard(s)
	}
}

func commit(b *testing.B, m *Mirror, group []*Staged) {
	for _, err := range m.Commit(group) {
		if err != nil {
			b.Fatal(err)
		}
	}
}
