package list

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseLine(t *testing.T) {
	mod := time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)
	tests := []struct {
		line string
		want Entry
	}{
		{"- - 0 found - http://a/", Entry{Level: 0, State: Found, URL: "http://a/"}},
		{"a/index.html   fast    2 downloaded 2026-11-21T20:00:00Z https://a/x?y=1",
			Entry{File: "a/index.html", Spider: "fast", Level: 2, State: Downloaded, Modified: mod, URL: "https://a/x?y=1"}},
		{"-  slow 10 claimed - http://a/b", Entry{Spider: "slow", Level: 10, State: Claimed, URL: "http://a/b"}},
		{"a/b.html - 1 archived 2026-11-21T20:00:00Z http://a/b", Entry{File: "a/b.html", Level: 1, State: Archived, Modified: mod, URL: "http://a/b"}},
		{"- - 1 error - http://a/%D0%BF", Entry{Level: 1, State: Error, URL: "http://a/%D0%BF"}},
		{"a/p.html             - 3 disallowed 2026-11-21T20:00:00Z http://a/p", Entry{File: "a/p.html", Level: 3, State: Disallowed, Modified: mod, URL: "http://a/p"}},
	}
	for _, tt := range tests {
		got, err := ParseLine(tt.line)
		if err != nil {
			t.Errorf("ParseLine(%q): %v", tt.line, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseLine(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

func TestParseLineErrors(t *testing.T) {
	for _, line := range []string{
		"",
		"- - 0 found -",
		"- - 0 found - http://a/ extra",
		"- - x found - http://a/",
		"- - -1 found - http://a/",
		"- - 0 lost - http://a/",
		"- - 0 found yesterday http://a/",
		"- - 0 found 2026-02-31T00:00:00Z http://a/",
		"- - 0 found 2026-11-21T25:00:00Z http://a/",
		"- - 0 claimed - http://a/",
		"- bad/id 0 found - http://a/",
		"- waytoolongspiderid 0 found - http://a/",
		"- - 0 found - ftp://a/",
		"- - 0 found - http://a/\xff",
		"- - 0 found - http://a/\tb",
	} {
		if e, err := ParseLine(line); err == nil {
			t.Errorf("ParseLine(%q) = %+v, want error", line, e)
		} else if !errors.Is(err, errFormat) {
			t.Errorf("ParseLine(%q) error %v does not wrap errFormat", line, err)
		}
	}
}

func TestAppendLinePadding(t *testing.T) {
	e := Entry{Level: 1, State: Found, URL: "http://a/b"}
	line := string(AppendLine(nil, &e, 20))
	want := "-                    -            1 found      -                    http://a/b\n"
	if line != want {
		t.Errorf("AppendLine =\n%q, want\n%q", line, want)
	}
	if got := 20 + fixedWidth(1); got != len(want)-len(e.URL)-1 {
		t.Errorf("prefix of a line with a 20-byte file field = %d bytes, want %d", got, len(want)-len(e.URL)-1)
	}
	// Filling the reserved fields keeps the length.
	e.File, e.Spider, e.State, e.Modified = "a/b.html", "slow", Downloaded, time.Unix(1e9, 0)
	if got := AppendLine(nil, &e, 20); len(got) != len(want) {
		t.Errorf("filled line is %d bytes, want %d: %q", len(got), len(want), got)
	}
}

func FuzzLine(f *testing.F) {
	f.Add("a/b.html", "fast", 3, uint8(Downloaded), int64(1e9), "http://a/b", 12)
	f.Add("", "", 0, uint8(Found), int64(0), "https://x/?q=%20", 0)
	f.Fuzz(func(t *testing.T, file, spider string, level int, state uint8, mod int64, url string, width int) {
		e := Entry{File: file, Spider: spider, Level: level, State: State(state), URL: url}
		if mod > 0 && mod < 1<<35 {
			e.Modified = time.Unix(mod, 0).UTC()
		}
		line := string(AppendLine(nil, &e, width%300))
		got, err := ParseLine(strings.TrimSuffix(line, "\n"))
		valid := validEntry(&e)
		if valid && err != nil {
			t.Fatalf("valid %+v formatted as %q does not parse: %v", e, line, err)
		}
		if valid && got != e {
			t.Fatalf("round trip: %+v -> %q -> %+v", e, line, got)
		}
		// Whatever the bytes, parsing never panics.
		ParseLine(file + " " + spider + " " + url)
	})
}

// validEntry is the set of entries the format can hold.
func validEntry(e *Entry) bool {
	if e.File == "-" || strings.ContainsAny(e.File, " \n\r\t\x00") || e.Spider != "" && !ValidSpiderID(e.Spider) ||
		e.Level < 0 || e.Level > 9999999 || e.State < Found || e.State > Error || e.State == Claimed && e.Spider == "" ||
		!(strings.HasPrefix(e.URL, "http://") || strings.HasPrefix(e.URL, "https://")) ||
		strings.ContainsAny(e.URL, " \n\r\t") || e.Modified.Year() > 9999 {
		return false
	}
	line := e.File + e.URL
	return !strings.ContainsRune(line, '\uFFFD') && strings.ToValidUTF8(line, "\uFFFD") == line
}

// The fast path for canonical lines accepts only lines the general parser
// accepts, with the same result.
func FuzzParsers(f *testing.F) {
	e := Entry{File: "a/b.html", Spider: "fast", Level: 3, State: Downloaded, Modified: time.Unix(1e9, 0).UTC(), URL: "http://a/b"}
	f.Add(string(AppendLine(nil, &e, 20)))
	f.Add("-                    -            1 found      -                    http://a/b")
	f.Add("-  -            1 claimed    -                    http://a/b")
	f.Add("x fa st        1 found      -                    http://a/b")
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.TrimSuffix(line, "\n")
		var fast, slow view
		if !parseCanonical([]byte(line), &fast) {
			return
		}
		if err := parseFields([]byte(line), &slow); err != nil {
			t.Fatalf("fast path accepted %q, general parser says %v", line, err)
		}
		if fast.entry() != slow.entry() || fast.urlOff != slow.urlOff {
			t.Fatalf("%q: fast %+v, general %+v", line, fast.entry(), slow.entry())
		}
	})
}

func TestParseTimeMatchesTime(t *testing.T) {
	for _, s := range []string{"0000-01-01T00:00:00Z", "0000-02-29T23:59:59Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z",
		"2000-02-29T12:00:00Z", "2026-11-21T20:00:00Z", "2100-03-01T00:00:00Z", "9999-12-31T23:59:59Z"} {
		want, err := time.Parse(timeLayout, s)
		got, ok := parseTime([]byte(s))
		if err != nil || !ok || got != want.Unix() {
			t.Errorf("parseTime(%s) = %d, %v; time.Parse gives %d, %v", s, got, ok, want.Unix(), err)
		}
	}
	for _, s := range []string{"2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z"} {
		if _, ok := parseTime([]byte(s)); ok {
			t.Errorf("parseTime(%s) accepted an impossible date", s)
		}
	}
}

func FuzzPrintableASCII(f *testing.F) {
	f.Add([]byte("https://ru.wikipedia.org/wiki/%D0%9C"))
	f.Add([]byte{0x21, 0x7e, 0x7f, 0x20, 0x80, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		want := true
		for _, c := range b {
			if c < 0x21 || c > 0x7e {
				want = false
			}
		}
		if got := printableASCII(b); got != want {
			t.Fatalf("printableASCII(%q) = %v, want %v", b, got, want)
		}
	})
}
