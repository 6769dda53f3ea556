package crawl

import (
	"context"
	"errors"
	"hash/maphash"

	"github.com/spider-mirror/spider/list"
)

// knownBits is the size of a knownLines filter: 2^24 bits, 2 MiB. With
// two bits a URL, one URL in 100 that the list does not hold is taken for
// a known one at a million visited lines, one in five at five million.
const knownBits = 1 << 24

// knownLines is a Bloom filter of URLs. The per-host budget (scope.go)
// keeps the links a spider took in its earlier passes in one, which the
// budget does not count again; a link taken for one of them wrongly is
// taken without counting. Fetching ahead keeps the URLs of the list's
// visited lines (visited) in another, which the spider does not fetch
// ahead: their answers could
// not be used (decide), and the links of such pages, mostly known too,
// would walk the part of the site mirrored already. It is filled from the
// list each time fetching ahead turns on, which for a resumed first mirror
// is when its passes reach the frontier. A URL taken for a known one
// wrongly is only not fetched ahead: a pass claims it as any other line.
// Part of fetching ahead (ahead.go), under the lock of jobs (jobs.go);
// fill runs on a goroutine of its own, on a filter nobody else holds yet.
type knownLines struct {
	seed maphash.Seed
	bits []uint64
	n    int // URLs added
}

// knownChunk is how much of the list fill reads under one lock; between
// two chunks, betweenChunks runs. Tests change both.
var (
	knownChunk    = 4 << 20
	betweenChunks = func() {}
)

// fill adds the visited lines of l: a file is read in chunks so that other spiders'
// passes are not held up for a large list. A list rewritten meanwhile
// (ErrReplaced: another spider compacted it, or its pass rewrote it) is
// read again from the start, up to three times; what was read is kept.
func (k *knownLines) fill(ctx context.Context, l Store) error {
	cs, chunked := l.(chunkScanner)
	if !chunked {
		return l.Scan(ctx, k.addVisited)
	}
	var err error
	for range 3 {
		if err = k.read(ctx, cs); !errors.Is(err, list.ErrReplaced) {
			return err
		}
	}
	return err
}

// read is one reading of the list for fill.
func (k *knownLines) read(ctx context.Context, l chunkScanner) error {
	for off := int64(0); ; {
		next, err := l.ScanChunk(ctx, off, knownChunk, k.addVisited)
		if err != nil || next == off {
			return err
		}
		off = next
		betweenChunks()
	}
}

// addVisited adds e's URL if its line is visited.
func (k *knownLines) addVisited(e *list.Entry) error {
	if visited(*e) {
		k.add(e.URL)
	}
	return nil
}

func (k *knownLines) add(url string) {
	if k.bits == nil {
		k.seed, k.bits = maphash.MakeSeed(), make([]uint64, knownBits/64)
	}
	a, b := k.slots(url)
	k.bits[a/64] |= 1 << (a % 64)
	k.bits[b/64] |= 1 << (b % 64)
	k.n++
}

// has reports whether url may be a visited line: false for certain if not.
func (k *knownLines) has(url string) bool {
	if k.n == 0 {
		return false
	}
	a, b := k.slots(url)
	return k.bits[a/64]&(1<<(a%64)) != 0 && k.bits[b/64]&(1<<(b%64)) != 0
}

func (k *knownLines) slots(url string) (a, b uint64) {
	h := maphash.String(k.seed, url)
	return h % knownBits, (h >> 32) % knownBits
}
