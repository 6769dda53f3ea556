package linkname

import (
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
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
		{"http://h/about", extract.Page, mirror.Layout{}, "h/about.html"},
		{"http://h/logo.png", extract.Requisite, mirror.Layout{}, "h/logo.png"},
		{"http://h/s.php?v=1", extract.Style, mirror.Layout{}, "h/s.php?v=1.css"},
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
