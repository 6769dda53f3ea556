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

// BenchmarkWriteAll is pages written in groups of 64, as the crawl writes
// what its workers fetched since its last pass; the time is per page.
func BenchmarkWriteAll(b *testing.B) {
	benchGroups(b, func(i int) File {
		return File{fmt.Sprintf("h/topic/%d-slug.html", i), make([]byte, 2500)}
	})
}

// BenchmarkWriteAllSite is BenchmarkWriteAll on the shape of a site whose
// pages of a few KB each show an image: a page and its image in turn, in
// twenty sections, each with a directory of images.
func BenchmarkWriteAllSite(b *testing.B) {
	page, img := make([]byte, 3000), make([]byte, 6000)
	benchGroups(b, func(i int) File {
		if i%2 == 0 {
			return File{fmt.Sprintf("h/s%d/t%d.html", i/2%20, i/2), page}
		}
		return File{fmt.Sprintf("h/s%d/img/%d.png", i/2%20, i/2), img}
	})
}

// benchGroups writes file(0), file(1), ... in groups of 64, one file per
// iteration.
func benchGroups(b *testing.B, file func(int) File) {
	m, _ := openTemp(b)
	var group []File
	flush := func() {
		for i, err := range m.WriteAll(group) {
			if err != nil {
				b.Fatal(group[i].Rel, err)
			}
		}
		group = group[:0]
	}
	i := 0
	for b.Loop() {
		f := file(i)
		b.SetBytes(int64(len(f.Data)))
		if group = append(group, f); len(group) == 64 {
			flush()
		}
		i++
	}
	flush()
}
