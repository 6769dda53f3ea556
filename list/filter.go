package list

import "encoding/binary"

// urlFilter answers "certainly not one of the pass's URLs" for most lines
// at the cost of a few loads, before the exact map lookup that hashes the
// whole URL. A pass carries a few thousand URLs and reads millions of
// lines; the filter keys on the URL's length and last 8 bytes (where URLs
// of one site differ most), with at least 16 bits per URL carried, so
// about one line in 16 of the others still reaches the map.
type urlFilter struct {
	bits []uint64
	mask uint64
}

func newURLFilter(pend map[string]*pending) *urlFilter {
	n := uint64(1 << 16)
	for n < 16*uint64(len(pend)) {
		n <<= 1
	}
	f := &urlFilter{bits: make([]uint64, n/64), mask: n - 1}
	for u := range pend {
		h := filterHash([]byte(u)) & f.mask
		f.bits[h/64] |= 1 << (h % 64)
	}
	return f
}

func (f *urlFilter) mayHold(u []byte) bool {
	h := filterHash(u) & f.mask
	return f.bits[h/64]&(1<<(h%64)) != 0
}

func filterHash(u []byte) uint64 {
	var tail uint64
	if len(u) >= 8 {
		tail = binary.LittleEndian.Uint64(u[len(u)-8:])
	} else {
		for _, c := range u {
			tail = tail<<8 | uint64(c)
		}
	}
	x := tail ^ uint64(len(u))*0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	return x
}
