package linkname

import (
	"path"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/urlkey"
	"github.com/spider-mirror/spider/mirror"
)

func TestMediaType(t *testing.T) {
	for _, tt := range []struct {
		url  string
		kind extract.Kind
		want string
	}{
		{"http://h/a", extract.Page, "text/html"},
		{"http://h/a.php?x=1", extract.Page, "text/html"},
		{"http://h/a.HTM", extract.Requisite, "text/html"},
		{"http://h/a.png", extract.Page, ""},
		{"http://h/a", extract.Requisite, ""},
		{"http://h/a.js", extract.Requisite, ""},
		{"http://h/s.css?v=2", extract.Requisite, "text/css"},
		{"http://h/style.php?v=2", extract.Style, "text/css"},
		{"http://fonts.example.com/css?family=X", extract.Style, "text/css"},
		{"http://h/frame", extract.Frame, "text/html"},
		{"http://h/a.unknownext", extract.Page, "text/html"},
		{"http://h/dir.d/", extract.Page, "text/html"},
	} {
		if got := MediaType(tt.url, tt.kind); got != tt.want {
			t.Errorf("MediaType(%q, %v) = %q, want %q", tt.url, tt.kind, got, tt.want)
		}
	}
}

func TestFile(t *testing.T) {
	for _, tt := range []struct {
		url    string
		kind   extract.Kind
		layout mirror.Layout
		want   string
	}{
		{"http://h/", extract.Page, mirror.Layout{}, "h/index.html"},
		{"http://h/about", extract.Page, mirror.Layout{}, "h/about{}.html"},
		{"http://h/about.html", extract.Page, mirror.Layout{}, "h/about.html"},
		{"http://h/logo.png", extract.Requisite, mirror.Layout{}, "h/logo.png"},
		{"http://h/s.php?v=1", extract.Style, mirror.Layout{}, "h/s.php?v=1{}.css"},
		{"http://h/About", extract.Page, mirror.Layout{FoldCase: true}, ""},
	} {
		got, err := File(tt.layout, tt.url, tt.kind)
		if err != nil {
			t.Fatalf("File(%q): %v", tt.url, err)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("File(%q, %v) = %q, want %q", tt.url, tt.kind, got, tt.want)
		}
		if want, _ := tt.layout.Path(tt.url, MediaType(tt.url, tt.kind)); got != want {
			t.Errorf("File(%q) = %q, Layout.Path gives %q", tt.url, got, want)
		}
	}
}

// TestLeads is the table of issue 20's cases: the names links were given
// before the target was fetched, which must lead to the file it was
// written to.
func TestLeads(t *testing.T) {
	for _, tt := range []struct {
		url, typ string
		want     []string
	}{
		{"http://h/about", "text/html", nil},
		{"http://h/a.html", "text/html", nil},
		{"http://h/logo.png", "image/png", nil},
		{"http://h/d/", "text/html", nil},
		{"http://h/bin/report", "application/pdf", []string{"h/bin/report{}.html"}},
		{"http://h/nul.txt", "text/html", []string{"h/nul.txt"}},
		{"http://h/x", "text/plain", []string{"h/x{}.html"}},
		{"http://h/avatar/1", "image/png", []string{"h/avatar/1{}.html"}},
		{"http://h/logo.png", "text/html", []string{"h/logo.png"}},
		{"http://h/s.css", "text/html", []string{"h/s.css"}},
		{"http://h/s.css", "text/plain", nil},
		{"http://h/page.php?id=1", "application/zip", []string{"h/page.php?id=1{}.html"}},
	} {
		for _, l := range []mirror.Layout{{}, {FoldCase: true}} {
			file, err := l.Path(tt.url, tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			got := Leads(l, tt.url, file)
			if !l.FoldCase && strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("Leads(%q as %q) = %q, want %q", tt.url, tt.typ, got, tt.want)
			}
			if len(got) != len(tt.want) {
				t.Errorf("FoldCase Leads(%q as %q) = %q, want %d", tt.url, tt.typ, got, len(tt.want))
			}
			checkLeads(t, l, tt.url, file, got)
		}
	}
}

// checkLeads checks what Leads promises of leads, the leads of u written
// at file: neither file nor another lead, in file's directory, and u's own
// name under some media type.
func checkLeads(t *testing.T, l mirror.Layout, u, file string, leads []string) {
	t.Helper()
	own := map[string]bool{}
	for _, typ := range []string{"text/html", "text/css", ""} {
		p, _ := l.Path(u, typ)
		own[p] = true
	}
	seen := map[string]bool{file: true}
	for _, lead := range leads {
		if seen[lead] || !own[lead] || path.Dir(lead) != path.Dir(file) {
			t.Errorf("Leads(%q, %q): bad lead %q in %q", u, file, lead, leads)
		}
		seen[lead] = true
	}
}

// FuzzLeads checks that the files of two distinct URLs, written under any
// media type, and their leads never meet: a lead never overwrites another
// URL's copy.
func FuzzLeads(f *testing.F) {
	f.Add("http://h/a", "http://h/a.html")
	f.Add("http://h/d/", "http://h/d/index.html")
	f.Add("http://h/x", "http://h/x/y.html")
	f.Add("http://h/nul.txt", "http://h/nul.txt.html")
	f.Add("http://h/a?b", "http://h/a?b.html")
	types := []string{"text/html", "text/css", "image/png", ""}
	f.Fuzz(func(t *testing.T, a, b string) {
		u1, err1 := urlkey.Parse(a)
		u2, err2 := urlkey.Parse(b)
		if err1 != nil || err2 != nil || u1 == u2 || strings.TrimPrefix(u1, "https") == strings.TrimPrefix(u2, "http") ||
			strings.TrimPrefix(u1, "http") == strings.TrimPrefix(u2, "https") {
			return // one URL, or http and https, which share files
		}
		for _, l := range []mirror.Layout{{}, {FoldCase: true}} {
			names := map[string]string{}
			for _, u := range []string{u1, u2} {
				for _, typ := range types {
					file, err := l.Path(u, typ)
					if err != nil {
						return
					}
					leads := Leads(l, u, file)
					checkLeads(t, l, u, file, leads)
					for _, n := range append(leads, file) {
						if o, ok := names[n]; ok && o != u {
							t.Fatalf("%q is a name of %q and of %q", n, o, u)
						}
						names[n] = u
					}
				}
			}
		}
	})
}
