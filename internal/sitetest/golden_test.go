package sitetest

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestForumGolden pins the forum shape byte for byte: the tests of other
// packages and the benchmarks in scripts/ are written against it, so a
// change to the site's code must leave it as it is. The golden file lists
// every reachable path (and /robots.txt) with its content type and a digest
// of its body, for a few sites and mutations. Image bodies are left out of
// the digests: they are the standard library's PNG encoding, which may
// change between Go releases without the site changing.
func TestForumGolden(t *testing.T) {
	var b bytes.Buffer
	for _, sc := range []struct {
		name   string
		topics int
		mutate func(*Site)
	}{
		{"default", 0, func(*Site) {}},
		{"one topic", 1, func(*Site) {}},
		{"mutated", 25, func(s *Site) { mutate(t, s) }},
		{"120 topics", 120, func(*Site) {}},
	} {
		s := New(Options{Topics: sc.topics, Now: newClock().Now})
		sc.mutate(s)
		fmt.Fprintf(&b, "# %s\n", sc.name)
		b.WriteString(digests(t, s))
	}
	golden := filepath.Join("testdata", "forum.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the forum changed; diff %s against:\n%s", golden, got)
	}
}

// digests returns one line per reachable path and /robots.txt: the path,
// its content type and, unless it is an image, a digest of its body.
func digests(t *testing.T, s *Site) string {
	t.Helper()
	var b strings.Builder
	for _, p := range append(s.Paths(), "/robots.txt") {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		ct := w.Header().Get("Content-Type")
		sum := "-"
		if !strings.HasPrefix(ct, "image/") {
			sum = fmt.Sprintf("%x", sha256.Sum256(w.Body.Bytes()))[:16]
		}
		fmt.Fprintf(&b, "%d %s %s %s\n", w.Code, sum, ct, p)
	}
	return b.String()
}
