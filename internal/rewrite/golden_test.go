package rewrite

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// goldens lists the pages under testdata, one per link kind or concern. The
// page is at url (default page) and served with Content-Type ct; links to
// example.com are in the mirror, to any other host not.
var goldens = []struct{ name, url, ct string }{
	{name: "a"},
	{name: "area"},
	{name: "link"},
	{name: "script"},
	{name: "img"},
	{name: "iframe"},
	{name: "frame"},
	{name: "source"},
	{name: "video"},
	{name: "object"},
	{name: "background"},
	{name: "meta-refresh"},
	{name: "base"},
	{name: "base-nothing-rewritten"},
	{name: "scope"},
	{name: "svg"},
	{name: "style"},
	{name: "index", url: "http://example.com/"},
	{name: "query", url: "http://example.com/list?page=2"},
}

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.html")
	listed := map[string]bool{}
	for _, g := range goldens {
		listed["testdata/"+g.name+".html"] = true
	}
	for _, f := range files {
		if !listed[f] {
			t.Errorf("%s is not in goldens", f)
		}
	}
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			url := g.url
			if url == "" {
				url = page
			}
			in, err := os.ReadFile("testdata/" + g.name + ".html")
			if err != nil {
				t.Fatal(err)
			}
			var calls []call
			got, err := HTML(in, url, g.ct, mirrorTarget(url, &calls, "example.com"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := diffOutside(in, got); err != nil {
				t.Errorf("outside the links: %v", err)
			}
			golden := "testdata/" + g.name + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestGoldenCSS rewrites the style sheets under testdata, served at
// http://example.com/css/sheet.css.
func TestGoldenCSS(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.css")
	if len(files) == 0 {
		t.Fatal("no testdata/*.css")
	}
	const url = "http://example.com/css/sheet.css"
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var calls []call
			got, err := CSS(in, url, mirrorTarget(url, &calls, "example.com"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cssChanges("sheet", in, got); err != nil {
				t.Errorf("outside the urls: %v", err)
			}
			golden := strings.TrimSuffix(f, ".css") + ".css.golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestGoldenChanges spells out what the goldens change in a few pages, so
// that a wrong golden is easy to spot in review.
func TestGoldenChanges(t *testing.T) {
	tests := []struct{ name, want string }{
		{"img", `img[srcset] i-2x.png 2x, /img/i,3x.png 3x, data:image/png;base64,AAAA 4x, http://cdn.example.net/i4.png 5x -> i-2x.png 2x, ../img/i,3x.png 3x, data:image/png;base64,AAAA 4x, http://cdn.example.net/i4.png 5x
img[src] /Upper%20Case.PNG -> ../Upper%20Case.PNG
input[src] /btn/go.png -> ../btn/go.png
`},
		{"meta-refresh", `meta[content] 0;URL=/a b.html?x=1&amp;y=2 -> 0;URL=../a%20b.html%3Fx=1&amp;y=2.html
meta[content] 3, ../other/ -> 3, ../other/index.html
`},
	}
	for _, tt := range tests {
		in, err := os.ReadFile("testdata/" + tt.name + ".html")
		if err != nil {
			t.Fatal(err)
		}
		var calls []call
		out, err := HTML(in, page, "", mirrorTarget(page, &calls, "example.com"))
		if err != nil {
			t.Fatal(err)
		}
		changes, err := diffOutside(in, out)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(changes, "\n") + "\n"; got != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}
