package rewrite

import (
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// TestForward checks that the page Forward makes leads to its reference,
// escaped, by its refresh and its link.
func TestForward(t *testing.T) {
	for _, ref := range []string{"report%7B%7D", `a"b&c%3Fd`, "../x/y%7B%7D.pdf"} {
		page := Forward(ref)
		links, err := extract.HTML("http://h/dir/page", "text/html", page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), `http-equiv="refresh"`) {
			t.Errorf("Forward(%q) has no refresh: %s", ref, page)
		}
		want, _ := urlkey.Resolve("http://h/dir/page", ref)
		found := false
		for _, l := range links {
			found = found || l.URL == want
		}
		if !found {
			t.Errorf("Forward(%q): links %v, want one to %q", ref, links, want)
		}
	}
}
