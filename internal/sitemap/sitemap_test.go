package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func readAll(r io.Reader, lim Limits) (Kind, []Entry, int64, error) {
	var got []Entry
	k, n, err := Read(r, lim, func(e Entry) bool { got = append(got, e); return true })
	return k, got, n, err
}

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc> https://a.example/one </loc><lastmod>2024-03-01</lastmod><changefreq>daily</changefreq></url>
  <url>
    <loc><![CDATA[https://a.example/two?x=1&y=2]]></loc>
    <lastmod>2024-03-01T10:20:30+01:00</lastmod>
    <image:image><image:loc>https://a.example/img.png</image:loc></image:image>
  </url>
  <url><loc>https://a.example/three&amp;more</loc><lastmod>yesterday</lastmod></url>
  <url><lastmod>2024-03-01</lastmod></url>
</urlset>`

func TestReadURLSet(t *testing.T) {
	want := []Entry{
		{"https://a.example/one", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"https://a.example/two?x=1&y=2", time.Date(2024, 3, 1, 9, 20, 30, 0, time.UTC)},
		{"https://a.example/three&more", time.Time{}},
	}
	for _, tt := range []struct {
		name string
		body []byte
	}{{"plain", []byte(urlset)}, {"gzipped", gz(t, []byte(urlset))}} {
		t.Run(tt.name, func(t *testing.T) {
			k, got, n, err := readAll(bytes.NewReader(tt.body), Limits{})
			if err != nil || k != URLSet {
				t.Fatalf("Read = %v, %v; want urlset, nil", k, err)
			}
			if n != int64(len(urlset)) {
				t.Errorf("read %d bytes, want the file's %d", n, len(urlset))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("entries\n %v\nwant\n %v", got, want)
			}
		})
	}
}

func TestReadIndex(t *testing.T) {
	body := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://a.example/s1.xml.gz</loc><lastmod>2024-01-02T03:04:05Z</lastmod></sitemap>
<sitemap><loc>https://a.example/s2.xml</loc></sitemap>
</sitemapindex>`
	k, got, _, err := readAll(strings.NewReader(body), Limits{})
	if err != nil || k != Index || len(got) != 2 || got[0].Loc != "https://a.example/s1.xml.gz" || !got[1].Lastmod.IsZero() {
		t.Fatalf("Read = %v, %v, %v", k, got, err)
	}
}

func TestReadLimits(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		b.WriteString("<urlset>")
		for i := range n {
			fmt.Fprintf(&b, "<url><loc>https://a.example/%d</loc></url>", i)
		}
		b.WriteString("</urlset>")
		return b.String()
	}
	deep := "<urlset><url>" + strings.Repeat("<x>", 100_000) + "</urlset>"
	tests := []struct {
		name    string
		body    []byte
		lim     Limits
		entries int
		err     error
	}{
		{"entries over the limit", []byte(many(20)), Limits{MaxEntries: 5}, 5, ErrTooMany},
		{"entries at the limit", []byte(many(5)), Limits{MaxEntries: 5}, 5, nil},
		{"bytes over the limit", []byte(many(1000)), Limits{MaxBytes: 2000}, 0, ErrTooLarge},
		{"gzip bomb", gz(t, []byte("<urlset>"+strings.Repeat(" ", 8<<20)+"</urlset>")), Limits{MaxBytes: 1 << 20}, 0, ErrTooLarge},
		{"deep nesting", []byte(deep), Limits{}, 0, ErrTooDeep},
		{"html", []byte("<html><body><a href=x>x</a></body></html>"), Limits{}, 0, ErrNotSitemap},
		{"empty", nil, Limits{}, 0, ErrNotSitemap},
		{"loc too long", []byte("<urlset><url><loc>https://a.example/" + strings.Repeat("a", MaxLoc) + "</loc></url></urlset>"), Limits{}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, n, err := readAll(bytes.NewReader(tt.body), tt.lim)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.err != ErrTooLarge && len(got) != tt.entries {
				t.Errorf("%d entries, want %d", len(got), tt.entries)
			}
			if tt.lim.MaxBytes > 0 && n > tt.lim.MaxBytes {
				t.Errorf("read %d bytes past the limit %d", n, tt.lim.MaxBytes)
			}
		})
	}
}

func TestReadStops(t *testing.T) {
	calls := 0
	_, _, err := Read(strings.NewReader("<urlset><url><loc>a</loc></url><url><loc>b</loc></url></urlset>"), Limits{},
		func(Entry) bool { calls++; return false })
	if err != nil || calls != 1 {
		t.Fatalf("each called %d times, err %v; want once, nil", calls, err)
	}
}

// A second root element is not read: a urlset cannot turn into an index
// half-way.
func TestReadOneRoot(t *testing.T) {
	k, got, _, err := readAll(strings.NewReader("<urlset><url><loc>a</loc></url></urlset><sitemapindex><sitemap><loc>b</loc></sitemap></sitemapindex>"), Limits{})
	if err != nil || k != URLSet || len(got) != 1 {
		t.Fatalf("Read = %v, %v, %v", k, got, err)
	}
}

func TestLastmod(t *testing.T) {
	utc := func(y, mo, d, h, mi, s int) time.Time { return time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC) }
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2024-03-01", utc(2024, 3, 1, 0, 0, 0), true},
		{"2024-03-01T10:20+02:00", utc(2024, 3, 1, 8, 20, 0), true},
		{"2024-03-01T10:20:30Z", utc(2024, 3, 1, 10, 20, 30), true},
		{"2024-03-01T10:20:30.5-01:00", utc(2024, 3, 1, 11, 20, 30).Add(500 * time.Millisecond), true},
		{"2024-03-01T10:20:30+0200", utc(2024, 3, 1, 8, 20, 30), true},
		{"2024-03-01T10:20:30", utc(2024, 3, 1, 10, 20, 30), true},
		{" 2024-03 ", utc(2024, 3, 1, 0, 0, 0), true},
		{"2024", utc(2024, 1, 1, 0, 0, 0), true},
		{"0001-01-01", time.Time{}, false},
		{"1970-01-01T00:00:00Z", time.Time{}, false},
		{"01/03/2024", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := Lastmod(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("Lastmod(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(urlset))
	f.Add(gz(f, []byte(urlset)))
	f.Add([]byte("<sitemapindex><sitemap><loc>x</loc></sitemap></sitemapindex>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := Limits{MaxEntries: 10, MaxBytes: 4096}
		k, got, n, err := readAll(bytes.NewReader(b), lim)
		if len(got) > lim.MaxEntries || n > lim.MaxBytes {
			t.Fatalf("%d entries, %d bytes: over the limits", len(got), n)
		}
		for _, e := range got {
			if e.Loc == "" || len(e.Loc) > MaxLoc || e.Loc != strings.TrimSpace(e.Loc) {
				t.Fatalf("bad loc %q", e.Loc)
			}
		}
		if err == nil && k == Unknown {
			t.Fatal("no error and no kind")
		}
	})
}
