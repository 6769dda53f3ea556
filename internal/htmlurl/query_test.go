package htmlurl

import "testing"

func TestQueryEncoder(t *testing.T) {
	tests := []struct{ charset, ref, want string }{
		// Queries stay UTF-8: no encoder.
		{"", "/s?q=я", "/s?q=я"},
		{"utf-8", "/s?q=я", "/s?q=я"},
		{"utf-16le", "/s?q=я", "/s?q=я"},
		{"utf-16be", "/s?q=я", "/s?q=я"},
		{"replacement", "/s?q=я", "/s?q=я"},
		{"x-no-such-charset", "/s?q=я", "/s?q=я"},
		// Only the query, only if it is not ASCII.
		{"windows-1251", "/s?q=я", "/s?q=%FF"},
		{"windows-1251", "/статья?q=привет#якорь", "/статья?q=%EF%F0%E8%E2%E5%F2#якорь"},
		{"windows-1251", "/статья", "/статья"},
		{"windows-1251", "/a#?я", "/a#?я"},
		{"windows-1251", "/a?q=a b\"", "/a?q=a b\""},
		{"windows-1251", "?", "?"},
		// Once encoded, what may not stand raw in a query is escaped.
		{"windows-1251", "/a?q=я b\"<>'#f", "/a?q=%FF%20b%22%3C%3E%27#f"},
		// A character the encoding lacks is its decimal reference.
		{"windows-1251", "/s?q=日я", "/s?q=%26%2326085%3B%FF"},
		{"windows-1251", "/s?q=я日", "/s?q=%FF%26%2326085%3B"},
		{"koi8-r", "?q=привет", "?q=%D0%D2%C9%D7%C5%D4"},
		{"shift_jis", "/s?q=日本", "/s?q=%93%FA%96{"},
		{"euc-jp", "/s?q=日", "/s?q=%C6%FC"},
	}
	for _, tt := range tests {
		if got := NewQueryEncoder(tt.charset).Encode(tt.ref); got != tt.want {
			t.Errorf("%s: Encode(%q) = %q, want %q", tt.charset, tt.ref, got, tt.want)
		}
	}
	for _, name := range []string{"", "utf-8", "utf-16le", "utf-16be", "replacement", "x-no-such-charset"} {
		if q := NewQueryEncoder(name); q != nil {
			t.Errorf("NewQueryEncoder(%q) = %v, want nil", name, q)
		}
	}
}
