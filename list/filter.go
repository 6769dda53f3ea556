package list

import "encoding/binary"

// urlFilter answers "certainly not one of the pass's URLs" for most lines
// at the cost of a few loads, before the exact map lookup that hashes the
// whole URL. A pass carries a few thousand URLs and reads millions of
// lines; the filter keys on the URL's length and last 8 bytes (where URLs
// of one site differ most), so about len(pend)/65536 of the other lines
// still reach the map.
type urlFilter struct {
	bits [1 << 16 / 64]uint64
}

func newURLFilter(pend map[string]*pending) *urlFilter {
	f := new(urlFilter)
	for u := range pend {
		h := filterHash([]byte(u))
		f.bits[h/64] |= 1 << (h % 64)
	}
	return f
}

func (f *urlFilter) mayHold(u []byte) bool {
	h := filterHash(u)
	return f.bits[h/64]&(1<<(h%64)) != 0
}

func filterHash(u []byte) uint32 {
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
	return uint32(x) & (1<<16 - 1)
}
