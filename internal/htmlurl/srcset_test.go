package htmlurl

import (
	"strings"
	"testing"
)

// texts returns the text of each span of s.
func texts(s string, spans []Span) []string {
	var out []string
	for _, sp := range spans {
		out = append(out, s[sp.Start:sp.End])
	}
	return out
}

func TestSrcset(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{",, ,", nil},
		{"a.jpg", []string{"a.jpg"}},
		{"a.jpg 1x, b.jpg 2x", []string{"a.jpg", "b.jpg"}},
		{"a.jpg 1x,b.jpg 2x", []string{"a.jpg", "b.jpg"}},
		{"a.jpg, b.jpg", []string{"a.jpg", "b.jpg"}},
		{"a.jpg,, b.jpg", []string{"a.jpg", "b.jpg"}},
		{"a,b.jpg 1x, c.jpg 2x", []string{"a,b.jpg", "c.jpg"}},
		{"a.jpg,b.jpg", []string{"a.jpg,b.jpg"}}, // no whitespace: one URL, as in a browser
		{"/img.jpg?w=100,h=200 1x, /img.jpg?w=200,h=400 2x", []string{"/img.jpg?w=100,h=200", "/img.jpg?w=200,h=400"}},
		{"data:image/png;base64,iVBORw0KGgo= 1x, b.png 2x", []string{"data:image/png;base64,iVBORw0KGgo=", "b.png"}},
		{"a.jpg 100w (max-width: 600px, or so), b.jpg 200w", []string{"a.jpg", "b.jpg"}},
		{"a.jpg (unclosed, b.jpg", []string{"a.jpg"}},
		{"a.jpg 1x 2x 3x, b.jpg", []string{"a.jpg", "b.jpg"}},
		{" \n\ta.jpg\t1x,\r\nb.jpg\f2x ", []string{"a.jpg", "b.jpg"}},
		{",,, a.jpg ,,, b.jpg", []string{"a.jpg", "b.jpg"}},
		{"a\u00a0b.jpg 1x", []string{"a\u00a0b.jpg"}}, // NBSP is not HTML whitespace
	}
	for _, tt := range tests {
		got := texts(tt.in, SrcsetURLs(tt.in))
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("SrcsetURLs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSrcsetPositions checks spans where the same URL text stands more than
// once, which the texts alone do not pin down.
func TestSrcsetPositions(t *testing.T) {
	tests := []struct {
		in   string
		want []Span
	}{
		{"a 1x, a 2x", []Span{{0, 1}, {6, 7}}},
		{"a,, a", []Span{{0, 1}, {4, 5}}},
		{" a,b a, b", []Span{{1, 4}, {8, 9}}},
		{"x (a, a), a", []Span{{0, 1}, {10, 11}}},
	}
	for _, tt := range tests {
		got := SrcsetURLs(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("SrcsetURLs(%q) = %v, want %v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("SrcsetURLs(%q) = %v, want %v", tt.in, got, tt.want)
				break
			}
		}
	}
}

func FuzzSrcset(f *testing.F) {
	for _, s := range []string{
		"a.jpg 1x, b.jpg 2x", "a,b.jpg 1x,c.jpg", "x (a,b), y", ",,,", "a.jpg,", "(,) a, b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spans := SrcsetURLs(s)
		last := 0
		for _, sp := range spans {
			if sp.Start < last || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("SrcsetURLs(%q): span %v after %d", s, sp, last)
			}
			last = sp.End
		}
		urls := texts(s, spans)
		for _, u := range urls {
			if u == "" || strings.ContainsAny(u, " \t\n\f\r") || u[0] == ',' || u[len(u)-1] == ',' {
				t.Errorf("SrcsetURLs(%q): bad URL %q", s, u)
			}
			if !strings.Contains(s, u) {
				t.Errorf("SrcsetURLs(%q): %q is not from the input", s, u)
			}
		}
		words := strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
		if len(urls) > len(words) {
			t.Errorf("SrcsetURLs(%q): %d URLs from %d words", s, len(urls), len(words))
		}
	})
}
