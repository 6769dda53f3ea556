package list

import (
	"strings"
	"testing"
	"time"
)

func TestAppendLinePadding(t *testing.T) {
	e := Entry{Level: 1, State: Found, URL: "http://a/b"}
	line := string(AppendLine(nil, &e, 20))
	want := "-                    -            1 found      -                    -                    http://a/b\n"
	if line != want {
		t.Errorf("AppendLine =\n%q, want\n%q", line, want)
	}
	if got := 20 + fixedWidth(1); got != len(want)-len(e.URL)-1 {
		t.Errorf("prefix of a line with a 20-byte file field = %d bytes, want %d", got, len(want)-len(e.URL)-1)
	}
	// Filling the reserved fields keeps the length.
	e.File, e.Spider, e.State, e.Modified, e.Due = "a/b.html", "slow", Downloaded, time.Unix(1e9, 0), time.Unix(2e9, 0)
	if got := AppendLine(nil, &e, 20); len(got) != len(want) {
		t.Errorf("filled line is %d bytes, want %d: %q", len(got), len(want), got)
	}
}

func FuzzLine(f *testing.F) {
	f.Add("a/b.html", "fast", 3, uint8(Downloaded), int64(1e9), int64(2e9), "http://a/b", 12)
	f.Add("", "", 0, uint8(Found), int64(0), int64(1e9), "https://x/?q=%20", 0)
	f.Fuzz(func(t *testing.T, file, spider string, level int, state uint8, mod, due int64, url string, width int) {
		e := Entry{File: file, Spider: spider, Level: level, State: State(state), URL: url}
		if mod > 0 && mod < 1<<35 {
			e.Modified = time.Unix(mod, 0).UTC()
		}
		if due > 0 && due < 1<<35 {
			e.Due = time.Unix(due, 0).UTC()
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
		var v view
		if valid && (parseLine([]byte(strings.TrimSuffix(line, "\n")), &v) != nil || !v.canonical) {
			t.Fatalf("valid %+v formatted as %q is not canonical", e, line)
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
		strings.ContainsAny(e.URL, " \n\r\t") || e.Modified.Year() > 9999 || e.Due.Year() > 9999 {
		return false
	}
	line := e.File + e.URL
	return !strings.ContainsRune(line, '\uFFFD') && strings.ToValidUTF8(line, "\uFFFD") == line
}
