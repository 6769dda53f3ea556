package rewrite

import (
	"fmt"
	"strings"
	"testing"
)

func TestScanAttrs(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`<a>`, ``},
		{`<a href="x" id=y class='z' hidden>`, `href"x" id=y class'z' hidden`},
		{`<A HREF = "x"   >`, `href"x"`},
		{`<img src=a/>`, `src=a/`},
		{`<img src="a"/>`, `src"a" |`},
		{`<img src=a />`, `src=a |`},
		{`<a =x href=y>`, `=x href=y`},
		{`<a href=>`, `href=`},
		{`<a/href=x/>`, `| href=x/`},
		{`<a href="x"title=y>`, `href"x" title=y`},
		{`<a b c=d>`, `b c=d`},
	}
	for _, tt := range tests {
		var parts []string
		for _, a := range scanAttrs(nil, []byte(tt.raw)) {
			switch {
			case a.key == "":
				parts = append(parts, "|")
			case a.quote != 0:
				parts = append(parts, fmt.Sprintf("%s%c%s%c", a.key, a.quote, tt.raw[a.v0:a.v1], a.quote))
			case a.end > a.v0 || strings.HasSuffix(tt.raw[:a.end], "="):
				parts = append(parts, a.key+"="+tt.raw[a.v0:a.v1])
			default:
				parts = append(parts, a.key)
			}
		}
		if got := strings.Join(parts, " "); got != tt.want {
			t.Errorf("scanAttrs(%s) = %s, want %s", tt.raw, got, tt.want)
		}
	}
}

func TestNewValue(t *testing.T) {
	tests := []struct {
		v     string
		quote byte
		ref   string
		want  string
	}{
		{"/x", '"', "../x", "../x"},
		{"/x?a&b", '"', "../x%3Fa&b.html", "../x%3Fa&amp;b.html"},
		{"/x", '"', `a"b`, "a&quot;b"},
		{"/x", '\'', `a'b"`, `a&#39;b"`},
		{"/x", 0, "../x", "../x"},
		{"/x", 0, "../x?a=b", `"../x?a=b"`},
		{"/x", 0, "a&b", "a&amp;b"},
		{"/x", 0, `a"b`, `'a"b'`},
		{"/x", 0, "", `""`},
	}
	for _, tt := range tests {
		got := string(newValue([]byte(tt.v), tt.quote, []piece{{0, len(tt.v), tt.ref}}))
		if got != tt.want {
			t.Errorf("newValue(%q, %q, %q) = %s, want %s", tt.v, tt.quote, tt.ref, got, tt.want)
		}
	}
	// A piece of an unquoted value that needs quotes quotes the whole value.
	if got := string(newValue([]byte(`a,b"c`), 0, []piece{{0, 1, "x y"}})); got != `'x y,b"c'` {
		t.Errorf("got %s", got)
	}
	if got := string(newValue([]byte(`a,b"c'`), 0, []piece{{0, 1, "x y"}})); got != `"x y,b&quot;c'"` {
		t.Errorf("got %s", got)
	}
}
