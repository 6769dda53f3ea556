package htmlurl

import (
	"fmt"
	"strings"
	"testing"
)

func TestRulesFor(t *testing.T) {
	tests := []struct{ tag, want string }{
		{"a", "href"},
		{"img", "src srcset"},
		{"source", "src srcset"},
		{"video", "src poster"},
		{"meta", "content"},
		{"th", "background"},
		{"form", "action"},
		{"input", "src formaction"},
		{"button", "formaction"},
		{"div", ""},
		{"base", ""}, // the document base, not a link
		{"A", ""},    // names are lower case
	}
	for _, tt := range tests {
		var attrs []string
		for _, r := range RulesFor(tt.tag) {
			if r.Tag != tt.tag {
				t.Errorf("RulesFor(%q) has a rule for %q", tt.tag, r.Tag)
			}
			attrs = append(attrs, r.Attr)
		}
		if got := strings.Join(attrs, " "); got != tt.want {
			t.Errorf("RulesFor(%q) = %q, want %q", tt.tag, got, tt.want)
		}
	}
	all := Rules()
	if len(all) != len(rules) {
		t.Errorf("Rules() has %d rules, want %d", len(all), len(rules))
	}
	for _, r := range all {
		if found := RulesFor(r.Tag); len(found) == 0 || found[0].Tag != r.Tag {
			t.Errorf("rule %v not found by its tag", r)
		}
	}
	all[0].Tag = "changed"
	if Rules()[0].Tag == "changed" {
		t.Error("Rules() shares the table")
	}
}

// rule returns the rule for tag[attr].
func rule(t *testing.T, tag, attr string) Rule {
	t.Helper()
	for _, r := range RulesFor(tag) {
		if r.Attr == attr {
			return r
		}
	}
	t.Fatalf("no rule for %s[%s]", tag, attr)
	return Rule{}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		tag, attr string
		others    map[string]string // the element's other attributes
		want      string            // kind, or "none"
	}{
		{"a", "href", nil, "page"},
		{"area", "href", nil, "page"},
		{"iframe", "src", nil, "frame"},
		{"frame", "src", nil, "frame"},
		{"img", "srcset", nil, "requisite"},
		{"object", "data", nil, "requisite"},
		{"link", "href", map[string]string{"rel": "stylesheet"}, "style"},
		{"link", "href", map[string]string{"rel": "Shortcut Icon"}, "requisite"},
		{"link", "href", map[string]string{"rel": "canonical"}, "page"},
		{"link", "href", nil, "page"},
		{"link", "href", map[string]string{"rel": "preconnect"}, "none"},
		// WordPress 6.1's head: the post's short link, a redirect to it,
		// and the endpoints of blog editors.
		{"link", "href", map[string]string{"rel": "shortlink"}, "none"},
		{"link", "href", map[string]string{"rel": "pingback"}, "none"},
		{"link", "href", map[string]string{"rel": "EditURI"}, "none"},
		{"link", "href", map[string]string{"rel": "wlwmanifest"}, "none"},
		{"link", "href", map[string]string{"rel": "alternate"}, "page"},
		{"meta", "content", map[string]string{"http-equiv": " Refresh "}, "page"},
		{"meta", "content", map[string]string{"http-equiv": "content-type"}, "none"},
		{"meta", "content", map[string]string{"name": "refresh"}, "none"},
		{"input", "src", map[string]string{"type": "IMAGE"}, "requisite"},
		{"input", "src", map[string]string{"type": "text"}, "none"},
		{"input", "src", nil, "none"},
		{"img", "src", map[string]string{"type": "text", "rel": "preconnect"}, "requisite"},
	}
	for _, tt := range tests {
		kind, ok := rule(t, tt.tag, tt.attr).Classify(func(a string) string { return tt.others[a] })
		got := kind.String()
		if !ok {
			got = "none"
		}
		if got != tt.want {
			t.Errorf("%s[%s] with %v: %s, want %s", tt.tag, tt.attr, tt.others, got, tt.want)
		}
	}
}

func TestLinkKind(t *testing.T) {
	tests := []struct{ rel, want string }{
		{"stylesheet", "style"},
		{"alternate stylesheet", "style"},
		{"STYLESHEET", "style"},
		{"icon stylesheet", "style"},
		{"icon", "requisite"},
		{"shortcut icon", "requisite"},
		{"mask-icon", "requisite"},
		{"apple-touch-icon-precomposed", "requisite"},
		{"manifest", "requisite"},
		{"preload", "requisite"},
		{"modulepreload", "requisite"},
		{"prefetch", "requisite"},
		{"image_src", "requisite"},
		{"preconnect stylesheet", "style"}, // a resource after all
		{"canonical", "page"},
		{"alternate", "page"},
		{"next", "page"},
		{"", "page"},
		{"iconic", "page"},
		{"preconnect", "none"},
		{"dns-prefetch", "none"},
		{"\tPreconnect  next", "none"},
	}
	for _, tt := range tests {
		kind, ok := LinkKind(tt.rel)
		got := kind.String()
		if !ok {
			got = "none"
		}
		if got != tt.want {
			t.Errorf("LinkKind(%q) = %s, want %s", tt.rel, got, tt.want)
		}
	}
}

func TestSpans(t *testing.T) {
	tests := []struct{ tag, attr, v, want string }{
		{"a", "href", " x.html ", `" x.html "`},
		{"a", "href", "", `""`},
		{"img", "src", "a.png 1x, b.png 2x", `"a.png 1x, b.png 2x"`},
		{"img", "srcset", "a.png 1x, b.png 2x", `"a.png" "b.png"`},
		{"source", "srcset", ",,", ""},
		{"meta", "content", "5; url='n.html'", `"n.html"`},
		{"meta", "content", "30", ""},
	}
	for _, tt := range tests {
		var parts []string
		for _, s := range texts(tt.v, rule(t, tt.tag, tt.attr).Spans(tt.v)) {
			parts = append(parts, fmt.Sprintf("%q", s))
		}
		if got := strings.Join(parts, " "); got != tt.want {
			t.Errorf("%s[%s] %q: spans %s, want %s", tt.tag, tt.attr, tt.v, got, tt.want)
		}
	}
}
