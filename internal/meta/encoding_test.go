package meta

import (
	"reflect"
	"testing"
	"time"
)

// Records survive the file's encoding, to the second.
func TestEncodingRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []Record{
		{URL: "http://a/"},
		{URL: "http://a/x?y=1", ETag: `W/"x"`, LastModified: "Sat, 21 Nov 2026 12:00:00 GMT", Checksum: "ab",
			MediaType: "text/html", Size: 12, Status: 304, Error: "e", Reason: "r", Attempts: 3, Fails: 2,
			NotFound: 1, Unchanged: 4, LastAttempt: now, LastOK: now.Add(-time.Hour), LastChanged: now.Add(-2 * time.Hour),
			RetryAt: now.Add(time.Minute), RedirectTo: "http://a/y", NotFoundSince: now.Add(-time.Minute)},
	}
	for _, r := range tests {
		b, err := encode(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(r.URL, b)
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %+v: %+v, %v (stored %s)", r, got, err, b)
		}
	}
}

// decode never panics on what a file may hold, and what it accepts
// encodes back to a value that decodes the same.
func FuzzDecode(f *testing.F) {
	b, _ := encode(Record{URL: "u", ETag: "x", Attempts: 2, LastOK: time.Unix(1_800_000_000, 0)})
	f.Add(b)
	f.Add([]byte(`{"la":-1,"s":99999999999}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decode("u", data)
		if err != nil {
			return
		}
		again, err := encode(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := decode("u", again)
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Errorf("%s decodes to %+v, which re-decodes to %+v (%v)", data, r, r2, err)
		}
	})
}
