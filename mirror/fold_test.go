package mirror

import (
	"strings"
	"testing"
)

// TestFoldCase is the collision table of the FoldCase layout: each pair of
// URLs would share a file on a case-insensitive file system under the
// default layout, and must not under FoldCase; names already safe stay as
// they are.
func TestFoldCase(t *testing.T) {
	fold := Layout{FoldCase: true}
	for _, pair := range [][2]string{
		{"http://h/About", "http://h/about"},
		{"http://h/About", "http://h/ABOUT"},
		{"http://h/Dir/x", "http://h/dir/x"},
		{"http://h/a?X=1", "http://h/a?x=1"},
		{"http://h/caf%C3%89", "http://h/caf%C3%A9"}, // É and é
		{"http://h/%C5%BF", "http://h/s"},            // ſ folds to s
		{"http://h/%CF%82", "http://h/%CF%83"},       // ς and σ
		{"http://h/CON.txt", "http://h/con.txt"},
		{"http://h/a.", "http://h/a"},
		{"http://h/a%20", "http://h/a"},
		{"http://h/con", "http://h/con.html"},
	} {
		a, b := canon(t, pair[0]), canon(t, pair[1])
		for _, typ := range []string{html, ""} {
			pa, err1 := fold.Path(a, typ)
			pb, err2 := fold.Path(b, typ)
			if err1 != nil || err2 != nil {
				t.Fatalf("Path: %v, %v", err1, err2)
			}
			if foldKey(pa) == foldKey(pb) {
				t.Errorf("%q and %q as %q: %q and %q are one file when case folds", a, b, typ, pa, pb)
			}
		}
	}
	for _, tt := range []struct{ url, typ, want string }{
		{"http://example.com/about.html", html, "example.com/about.html"},
		{"http://example.com/about", html, "example.com/about{}.html"},
		{"http://example.com/docs/", html, "example.com/docs/index.html"},
		{"http://example.com/About", html, "example.com/About{4efca0d10c5feb8e}{}.html"},
		{"http://example.com/img/Logo.PNG", png, "example.com/img/Logo{35d12e5f568764b5}.PNG"},
		{"http://example.com/con", html, "example.com/con{}{}.html"},
		{"http://example.com/con.html", html, "example.com/con{}.html"},
		{"http://example.com/nul.tar.gz", "", "example.com/nul{}.tar.gz"},
		{"http://example.com/lpt1", "", "example.com/lpt1{}{}"},
		{"http://example.com/console", "", "example.com/console{}"},
		{"http://example.com/console.txt", "", "example.com/console.txt"},
		{"http://example.com/a.", "", "example.com/a.{}"},
	} {
		got, err := fold.Path(canon(t, tt.url), tt.typ)
		if err != nil || got != tt.want {
			t.Errorf("FoldCase Path(%q, %q) = %q, %v; want %q", tt.url, tt.typ, got, err, tt.want)
		}
		if !strings.Contains(tt.want, "{") {
			if p, _ := Path(canon(t, tt.url), tt.typ); p != got {
				t.Errorf("%q: FoldCase changed a safe path %q to %q", tt.url, p, got)
			}
		}
	}
}

// The fast paths of foldName's checks (lowerASCII, isDevice's length test)
// answer as the full checks do.
func FuzzFoldName(f *testing.F) {
	for _, s := range []string{"index.html", "About.html", "con.txt", "CON", "com1 ", "lpt¹.x", "conıin$", "a.", "b ", "ſ", "x{y}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if lowerASCII(name) && strings.ToLower(strings.ToUpper(name)) != name {
			t.Fatalf("lowerASCII(%q) but case folding changes it", name)
		}
		if got, want := isDevice(name), isDeviceUpper(strings.TrimRight(strings.ToUpper(name), " ")); got != want {
			t.Fatalf("isDevice(%q) = %v, want %v", name, got, want)
		}
	})
}
