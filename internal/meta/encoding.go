package meta

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
)

// stored is a Record as the file keeps it: short keys, times in unix
// seconds, the checksum in the sums index only by its first 16 bytes.
// About half the size of Record's own JSON, which matters at millions of
// URLs (the file is mapped while a pass stores history). The URL is the
// record's key, so it is not repeated in the value.
type stored struct {
	ETag          string `json:"e,omitempty"`
	LastModified  string `json:"m,omitempty"`
	Checksum      string `json:"c,omitempty"`
	MediaType     string `json:"t,omitempty"`
	Size          int64  `json:"z,omitempty"`
	Status        int    `json:"s,omitempty"`
	Error         string `json:"x,omitempty"`
	Reason        string `json:"r,omitempty"`
	Attempts      int    `json:"a,omitempty"`
	Fails         int    `json:"f,omitempty"`
	NotFound      int    `json:"n,omitempty"`
	Unchanged     int    `json:"u,omitempty"`
	LastAttempt   int64  `json:"la,omitempty"`
	LastOK        int64  `json:"lo,omitempty"`
	LastChanged   int64  `json:"lc,omitempty"`
	RetryAt       int64  `json:"ra,omitempty"`
	RedirectTo    string `json:"rt,omitempty"`
	Forwards      bool   `json:"fw,omitempty"`
	NotFoundSince int64  `json:"ns,omitempty"`
	// Held links, each as its kind's digit, "!" if nofollow, and its URL:
	// a path where the link shares the page's origin. A record without
	// (any written before the field was) reads as none held.
	Held []string `json:"h,omitempty"`
	// The change model: each visit as its seconds doubled, plus one if
	// it found a change; the counts; the link order; the announcement
	// time and the last lag in seconds.
	Visits    []uint64 `json:"v,omitempty"`
	Checks    int      `json:"vc,omitempty"`
	Changes   int      `json:"vx,omitempty"`
	Links     string   `json:"lk,omitempty"`
	Announced int64    `json:"an,omitempty"`
	Lag       int64    `json:"lg,omitempty"`
	// Whether the page is a listing, and its level then.
	Listing      int `json:"ls,omitempty"`
	ListingLevel int `json:"ll,omitempty"`
}

func encodeVisits(vs []Visit) []uint64 {
	if len(vs) == 0 {
		return nil
	}
	out := make([]uint64, len(vs))
	for i, v := range vs {
		out[i] = uint64(v.After) << 1
		if v.Changed {
			out[i]++
		}
	}
	return out
}

func decodeVisits(vs []uint64) []Visit {
	if len(vs) == 0 {
		return nil
	}
	out := make([]Visit, len(vs))
	for i, v := range vs {
		out[i] = Visit{After: uint32(v >> 1), Changed: v&1 == 1}
	}
	return out
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func fromUnix(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}

// Encode returns r in the store's compact encoding (the URL, its key, is
// left out): the bytes any store of records keeps.
func Encode(r Record) ([]byte, error) { return encode(r) }

// Decode reads a record of url that Encode wrote.
func Decode(url string, b []byte) (Record, error) { return decode(url, b) }

// SumKey returns the key under which a record whose body had checksum
// sum is indexed for exact duplicates: its first 16 bytes, raw.
func SumKey(sum string) []byte { return sumPrefix(sum) }

func encode(r Record) ([]byte, error) {
	return json.Marshal(stored{
		ETag: r.ETag, LastModified: r.LastModified, Checksum: r.Checksum, MediaType: r.MediaType, Size: r.Size,
		Status: r.Status, Error: r.Error, Reason: r.Reason, Attempts: r.Attempts, Fails: r.Fails,
		NotFound: r.NotFound, Unchanged: r.Unchanged, LastAttempt: unix(r.LastAttempt), LastOK: unix(r.LastOK),
		LastChanged: unix(r.LastChanged), RetryAt: unix(r.RetryAt), RedirectTo: r.RedirectTo, Forwards: r.Forwards,
		NotFoundSince: unix(r.NotFoundSince),
		Held:          encodeLinks(r.URL, r.Held),
		Visits:        encodeVisits(r.Visits), Checks: r.Checks, Changes: r.Changes, Links: r.Links,
		Announced: unix(r.Announced), Lag: int64(r.Lag / time.Second),
		Listing: r.Listing, ListingLevel: r.ListingLevel,
	})
}

func decode(url string, b []byte) (Record, error) {
	var s stored
	if err := json.Unmarshal(b, &s); err != nil {
		return Record{}, err
	}
	return Record{URL: url,
		ETag: s.ETag, LastModified: s.LastModified, Checksum: s.Checksum, MediaType: s.MediaType, Size: s.Size,
		Status: s.Status, Error: s.Error, Reason: s.Reason, Attempts: s.Attempts, Fails: s.Fails,
		NotFound: s.NotFound, Unchanged: s.Unchanged, LastAttempt: fromUnix(s.LastAttempt), LastOK: fromUnix(s.LastOK),
		LastChanged: fromUnix(s.LastChanged), RetryAt: fromUnix(s.RetryAt), RedirectTo: s.RedirectTo, Forwards: s.Forwards,
		NotFoundSince: fromUnix(s.NotFoundSince),
		Held:          decodeLinks(url, s.Held),
		Visits:        decodeVisits(s.Visits), Checks: s.Checks, Changes: s.Changes, Links: s.Links,
		Announced: fromUnix(s.Announced), Lag: time.Duration(s.Lag) * time.Second,
		Listing: s.Listing, ListingLevel: s.ListingLevel,
	}, nil
}

func encodeLinks(page string, links []Link) []string {
	if len(links) == 0 {
		return nil
	}
	o := origin(page)
	out := make([]string, len(links))
	for i, l := range links {
		var b strings.Builder
		b.Grow(len(l.URL) + 2)
		b.WriteByte('0' + l.Kind%10)
		if l.Nofollow {
			b.WriteByte('!')
		}
		u := l.URL
		if rest, ok := strings.CutPrefix(u, o); ok && o != "" && strings.HasPrefix(rest, "/") {
			u = rest
		}
		b.WriteString(u)
		out[i] = b.String()
	}
	return out
}

// decodeLinks reads what encodeLinks wrote; an entry it cannot read is
// left out.
func decodeLinks(page string, held []string) []Link {
	var out []Link
	o := origin(page)
	for _, h := range held {
		if h == "" || h[0] < '0' || h[0] > '9' {
			continue
		}
		l := Link{Kind: h[0] - '0'}
		h = h[1:]
		if rest, ok := strings.CutPrefix(h, "!"); ok {
			l.Nofollow, h = true, rest
		}
		l.URL = h
		if o != "" && strings.HasPrefix(h, "/") {
			l.URL = o + h
		}
		out = append(out, l)
	}
	return out
}

// origin returns the scheme and authority of an absolute URL
// ("http://host:port"), or "" for anything else.
func origin(u string) string {
	i := strings.Index(u, "://")
	if i <= 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

// sumPrefix is the key prefix of a checksum in the sums index: its first
// 16 bytes, raw (a collision of 128 bits of SHA-256 is not a concern).
func sumPrefix(sum string) []byte {
	if b, err := hex.DecodeString(sum); err == nil && len(b) >= 16 {
		return b[:16]
	}
	h := sha256.Sum256([]byte(sum)) // not a SHA-256 in hex: hashed to the same width
	return h[:16]
}

const sumLen = 16 // bytes of sumPrefix
