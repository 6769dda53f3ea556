package list

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
		"-                    -            1 found      -                    http://a/ b", // canonical layout, a space in the URL
	} {
		if e, err := ParseLine(line); err == nil {
			t.Errorf("ParseLine(%q) = %+v, want error", line, e)
		} else if !errors.Is(err, errFormat) {
			t.Errorf("ParseLine(%q) error %v does not wrap errFormat", line, err)
		}
	}
}

func TestParseLineCanonical(t *testing.T) {
	tests := []struct {
		line      string
		canonical bool
	}{
		{"-                    -            1 found      -                    -                    http://a/b", true},
		{"a/b.html fast         12 downloaded 2026-11-21T20:00:00Z 2026-11-22T20:00:00Z http://a/b", true},
		{"a/b.html fast         12 downloaded 2026-11-21T20:00:00Z http://a/b", false},                             // version 1
		{"a/b.html - 0 found - http://a/b", false},                                                                 // squeezed
		{" a/b.html -            1 found      -                    http://a/b", false},                             // leading space
		{"a/b.html -            1 found      -                     http://a/b", false},                             // one space too many before the URL
		{"a/b.html -             1 found      -                    http://a/b", false},                             // spider field too wide
		{"a/b.html -            1  found     -                    http://a/b", false},                              // state starts late
		{"a/b.html -            007 found      -                    -                    http://a/b", true},        // leading zeros are still one field
		{"a/b.html fast         1 claimed    2026-11-21T20:00:00Z -                    http://a/%D0%BF?q=1", true}, // percent-encoded URL
	}
	for _, tt := range tests {
		var v view
		if err := parseLine([]byte(tt.line), &v); err != nil {
			t.Errorf("parseLine(%q): %v", tt.line, err)
			continue
		}
		if v.canonical != tt.canonical {
			t.Errorf("parseLine(%q): canonical = %v, want %v", tt.line, v.canonical, tt.canonical)
		}
		if !strings.HasSuffix(tt.line, " "+string(v.url)) || v.urlOff != len(tt.line)-len(v.url) {
			t.Errorf("parseLine(%q): url %q at %d", tt.line, v.url, v.urlOff)
		}
	}
}

// refParse is the line format as the package doc states it, written plainly
// with the strings and time packages: the oracle FuzzParseLine holds
// parseLine to. canonical reports whether the line is laid out as
// AppendLine writes it.
func refParse(line string) (e Entry, canonical, ok bool) {
	var f [6]string
	var at [6]int
	rest := line
	n := 0
	for ; n < len(f); n++ {
		field := strings.TrimLeft(rest, " ")
		if n == 5 && strings.HasPrefix(field, "http") {
			break // version 1: no due field
		}
		k := strings.IndexByte(field, ' ')
		if k < 0 {
			k = len(field)
		}
		if k == 0 {
			return Entry{}, false, false
		}
		f[n], at[n] = field[:k], len(line)-len(field)
		rest = field[k:]
	}
	url := strings.TrimLeft(rest, " ")
	if url == "" || strings.ContainsAny(url, " \t\r") || !utf8.ValidString(line) ||
		!strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return Entry{}, false, false
	}
	dash := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	e = Entry{File: dash(f[0]), Spider: dash(f[1]), URL: url}
	if strings.Contains(e.File, "\x00") || e.Spider != "" && !ValidSpiderID(e.Spider) ||
		len(f[2]) > 7 || strings.Trim(f[2], "0123456789") != "" {
		return Entry{}, false, false
	}
	e.Level, _ = strconv.Atoi(f[2])
	for s := Found; s <= Disallowed; s++ {
		if s.String() == f[3] {
			e.State = s
		}
	}
	if e.State == 0 || e.State == Claimed && e.Spider == "" {
		return Entry{}, false, false
	}
	times := []*time.Time{&e.Modified, &e.Due}
	for i, field := range f[4:n] {
		if field == "-" {
			continue
		}
		t, err := time.Parse(timeLayout, field)
		if err != nil || t.Format(timeLayout) != field {
			return Entry{}, false, false
		}
		if t.Unix() != 0 { // the epoch itself reads as no time, as zero is none
			*times[i] = t
		}
	}
	if n < 6 {
		return e, false, true // version 1 is never canonical
	}
	// The file field is padded in bytes (fmt pads in runes); the others are ASCII.
	filePad := strings.Repeat(" ", at[1]-1-len(f[0]))
	canonical = line == fmt.Sprintf("%s%s %-12s %s %-10s %-20s %-20s %s", f[0], filePad, f[1], f[2], f[3], f[4], f[5], url)
	return e, canonical, true
}

// parseLine accepts exactly the lines the format's plain statement does,
// with the same fields, and says which of them are canonical.
func FuzzParseLine(f *testing.F) {
	e := Entry{File: "a/b.html", Spider: "fast", Level: 3, State: Downloaded, Modified: time.Unix(1e9, 0).UTC(), URL: "http://a/b"}
	f.Add(string(AppendLine(nil, &e, 20)))
	f.Add("-                    -            1 found      -                    -                    http://a/b")
	f.Add("-                    -            1 found      -                    http://a/b")
	f.Add("-  -            1 claimed    -                    2026-11-21T20:00:00Z http://a/b")
	f.Add("-  -            1 claimed    -                    httpx://a/b")
	f.Add("x fa st        1 found      -                    http://a/b")
	f.Add("-                    -            1 found      -                    http://a/ b")
	f.Add("a - 0 archived 1970-01-01T00:00:00Z https://a/\xff")
	f.Add("즣 000000000000 0 downloaded 0000-01-01T00:00:00Z http://")
	f.Fuzz(func(t *testing.T, line string) {
		var v view
		err := parseLine([]byte(line), &v)
		want, canonical, ok := refParse(line)
		switch {
		case err != nil && ok:
			t.Fatalf("parseLine(%q): %v; the format allows it as %+v", line, err, want)
		case err == nil && !ok:
			t.Fatalf("parseLine(%q) accepted %+v; the format does not allow it", line, v.entry())
		case err != nil && !errors.Is(err, errFormat):
			t.Fatalf("parseLine(%q): error %v does not wrap errFormat", line, err)
		case err == nil && (v.entry() != want || v.canonical != canonical):
			t.Fatalf("parseLine(%q) = %+v, canonical %v; want %+v, canonical %v", line, v.entry(), v.canonical, want, canonical)
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
