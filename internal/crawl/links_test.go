package crawl

import (
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
)

func TestGuessType(t *testing.T) {
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
	} {
		if got := guessType(tt.url, tt.kind); got != tt.want {
			t.Errorf("guessType(%q, %v) = %q, want %q", tt.url, tt.kind, got, tt.want)
		}
	}
}
