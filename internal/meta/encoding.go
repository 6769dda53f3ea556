package meta

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	NotFoundSince int64  `json:"ns,omitempty"`
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

func encode(r Record) ([]byte, error) {
	return json.Marshal(stored{
		ETag: r.ETag, LastModified: r.LastModified, Checksum: r.Checksum, MediaType: r.MediaType, Size: r.Size,
		Status: r.Status, Error: r.Error, Reason: r.Reason, Attempts: r.Attempts, Fails: r.Fails,
		NotFound: r.NotFound, Unchanged: r.Unchanged, LastAttempt: unix(r.LastAttempt), LastOK: unix(r.LastOK),
		LastChanged: unix(r.LastChanged), RetryAt: unix(r.RetryAt), RedirectTo: r.RedirectTo,
		NotFoundSince: unix(r.NotFoundSince),
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
		LastChanged: fromUnix(s.LastChanged), RetryAt: fromUnix(s.RetryAt), RedirectTo: s.RedirectTo,
		NotFoundSince: fromUnix(s.NotFoundSince),
	}, nil
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
