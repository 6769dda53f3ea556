package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
)

// Sitemaps are read by default; [scope] sitemaps = false or --no-sitemaps
// turns them off, and the flag wins over the file.
func TestSitemapsSetting(t *testing.T) {
	tests := []struct {
		toml  string
		flags []string
		want  bool
	}{
		{"", nil, true},
		{"[scope]\nsitemaps = false\n", nil, false},
		{"", []string{"--no-sitemaps"}, false},
		{"[scope]\nsitemaps = false\n", []string{"--no-sitemaps=false"}, true},
		{"[scope]\nsitemaps = true\n", []string{"--no-sitemaps"}, false},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "c.toml")
		os.WriteFile(path, []byte(tt.toml), 0o644)
		cfg, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		f := newRunFlags()
		if err := f.fs.Parse(append([]string{"--profile", "slow"}, tt.flags...)); err != nil {
			t.Fatal(err)
		}
		s, err := f.resolve(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.Sitemaps != tt.want {
			t.Errorf("config %q, flags %q: sitemaps %v, want %v", tt.toml, tt.flags, s.Sitemaps, tt.want)
		}
	}
}

// spider status sums the spiders' sitemap reads by host and prints them.
func TestStatusSitemaps(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	got := mergeSitemaps([]crawl.Status{
		{Sitemaps: []crawl.SitemapHost{{Host: "b.example", Reads: 1, Files: 2, URLs: 10, Taken: 9, Hinted: 4, Last: at}}},
		{Sitemaps: []crawl.SitemapHost{{Host: "b.example", Reads: 1, Files: 1, URLs: 5, Taken: 5, Hinted: 5, Last: at.Add(time.Hour)},
			{Host: "a.example", Reads: 1, Last: at}}},
	})
	if len(got) != 2 || got[0].Host != "a.example" {
		t.Fatalf("merged %+v, want a.example then b.example", got)
	}
	if b := got[1]; b.Reads != 2 || b.Files != 3 || b.URLs != 15 || b.Taken != 14 || b.Hinted != 9 || !b.Last.Equal(at.Add(time.Hour)) {
		t.Errorf("b.example merged %+v", b)
	}
	var out strings.Builder
	printSitemaps(&out, &Status{Sitemaps: got})
	if !strings.Contains(out.String(), "b.example") || !strings.Contains(out.String(), "2 reads, 3 files, 15 URLs listed, 14 taken, 9 with a lastmod") {
		t.Errorf("printed:\n%s", out.String())
	}
}

// spider status lists the start pages each spider found turned over
// between two polls, by page then spider, with the spider's shortest
// interval and the remedy.
func TestStatusTurnovers(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	fast := crawl.Status{Profile: "fast", WindowSec: 3600, ShortestSec: 1800,
		Turnovers: []crawl.Turnover{{URL: "http://b.example/", Polls: 3, Last: at}, {URL: "http://a.example/", Polls: 1, Last: at}}}
	slow := crawl.Status{Profile: "slow", WindowSec: 86400, ShortestSec: 1800,
		Turnovers: []crawl.Turnover{{URL: "http://a.example/", Polls: 2, Last: at.Add(time.Minute)}}}
	st := &Status{}
	st.Turnovers = append(turnoversOf("slow", &slow), turnoversOf("fast", &fast)...)
	sortTurnovers(st.Turnovers)
	var got []string
	for _, tv := range st.Turnovers {
		got = append(got, tv.URL+" "+tv.Spider)
	}
	if want := []string{"http://a.example/ fast", "http://a.example/ slow", "http://b.example/ fast"}; !slices.Equal(got, want) {
		t.Fatalf("turnovers %q, want %q", got, want)
	}
	var out strings.Builder
	printTurnovers(&out, st)
	for _, want := range []string{"http://b.example/  3 polls by fast (shortest 30m0s), last 2026-11-21T12:00:00Z",
		"http://a.example/  1 poll by fast", "hint: a shorter --delay"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed no %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	printTurnovers(&out, &Status{})
	if out.Len() != 0 {
		t.Errorf("printed for no turnover:\n%s", out.String())
	}
}
