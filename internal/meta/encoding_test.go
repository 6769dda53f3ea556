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
		{URL: "http://a:8080/p", Held: []Link{{URL: "http://a:8080/q?x=1", Kind: 1}, {URL: "http://a:8080/", Kind: 4},
			{URL: "http://a/other-port", Kind: 1}, {URL: "https://cdn.example/i.png", Kind: 3, Nofollow: true},
			{URL: "http://a:8080", Kind: 2}}},
		{URL: "http://a/m", Visits: []Visit{{After: 3600}, {After: 1, Changed: true}, {After: 1 << 31, Changed: true}},
			Checks: 40, Changes: 7, Links: "AAECAwQFBgc", Announced: now, Lag: 90 * time.Second, Listing: 8, ListingLevel: 2},
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

// Links held back take about their path's length in the file, and a
// record written before they were kept reads as holding none.
func TestEncodingHeld(t *testing.T) {
	b, err := encode(Record{URL: "https://wiki.example/Main_Page", Held: []Link{
		{URL: "https://wiki.example/Article_1", Kind: 1}, {URL: "https://wiki.example/s.css", Kind: 4, Nofollow: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"h":["1/Article_1","4!/s.css"]}`; string(b) != want {
		t.Errorf("stored %s, want %s", b, want)
	}
	old := []byte(`{"e":"\"x\"","c":"ab","s":304,"a":3,"u":2,"la":1795780800}`)
	r, err := decode("https://wiki.example/", old)
	if err != nil || r.Held != nil || r.ETag != `"x"` || r.Unchanged != 2 {
		t.Errorf("a record of before: %+v, %v", r, err)
	}
}

// decode never panics on what a file may hold, and what it accepts
// encodes back to a value that decodes the same.
func FuzzDecode(f *testing.F) {
	b, _ := encode(Record{URL: "u", ETag: "x", Attempts: 2, LastOK: time.Unix(1_800_000_000, 0)})
	f.Add(b)
	f.Add([]byte(`{"la":-1,"s":99999999999}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"h":["1/a","4!http://b/c","","x","9"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decode("http://a:1/p", data)
		if err != nil {
			return
		}
		again, err := encode(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := decode("http://a:1/p", again)
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Errorf("%s decodes to %+v, which re-decodes to %+v (%v)", data, r, r2, err)
		}
	})
}
