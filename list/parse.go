package list

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
	"unsafe"
)

// errFormat is wrapped by every line format error.
var errFormat = errors.New("malformed line")

// ParseError reports a malformed line of a list file.
type ParseError struct {
	Path string
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// ParseLine parses one line of a list file, without its newline.
func ParseLine(line string) (Entry, error) {
	var v view
	if err := parseLine([]byte(line), &v); err != nil {
		return Entry{}, err
	}
	return v.entry(), nil
}

// view is a parsed line whose byte fields alias the read buffer.
type view struct {
	file, spider, url []byte
	level             int
	state             State
	mod, due          int64 // unix seconds; 0 = none
	urlOff            int   // offset of the URL in the line = length of the prefix
	// canonical: the line is laid out as AppendLine writes it (the file
	// field first, every field after it at its fixed width), so its prefix
	// can be rewritten in place and a rewrite may copy it as it is.
	canonical bool
}

// parseLine parses one line without its newline, fields separated by runs
// of spaces: seven, or six for a line of version 1 (no due field; a URL
// starts with "http", a due field never does). It is the only parser of the format, and allocates nothing
// for a valid line: a pass parses every line of the list, so the common
// case (a line as AppendLine writes it, an ASCII URL) costs a few word
// compares per field, and only a line that fails a quick check is looked
// at again to say what is wrong with it.
func parseLine(line []byte, v *view) error {
	var start, end [6]int // the six fields before the URL
	i, n := 0, 0
	for ; n < len(start); n++ {
		i = skipSpaces(line, i)
		if n == 5 && bytes.HasPrefix(line[i:], []byte("http")) {
			break // version 1: the URL follows last_modification
		}
		j := i
		for j < len(line) && line[j] != ' ' {
			j++
		}
		if j == i {
			return fmt.Errorf("%w: %d fields, want 7", errFormat, n)
		}
		start[n], end[n] = i, j
		i = j
	}
	i = skipSpaces(line, i)
	*v = view{url: line[i:], urlOff: i}
	if err := checkURL(v.url); err != nil {
		return err
	}
	file := line[start[0]:end[0]]
	if !utf8.Valid(file) {
		return fmt.Errorf("%w: not UTF-8", errFormat)
	}
	if v.file = dash(file); bytes.IndexByte(v.file, 0) >= 0 {
		return fmt.Errorf("%w: file holds NUL", errFormat)
	}
	if v.spider = dash(line[start[1]:end[1]]); v.spider != nil && !ValidSpiderID(string(v.spider)) {
		return fmt.Errorf("%w: bad spider_id %q", errFormat, clip(v.spider))
	}
	var ok bool
	if v.level, ok = atoi(line[start[2]:end[2]]); !ok {
		return fmt.Errorf("%w: bad level %q", errFormat, clip(line[start[2]:end[2]]))
	}
	if v.state, ok = parseState(line[start[3]:end[3]]); !ok {
		return fmt.Errorf("%w: unknown state %q", errFormat, clip(line[start[3]:end[3]]))
	}
	if v.state == Claimed && v.spider == nil {
		return fmt.Errorf("%w: state claimed without spider_id", errFormat)
	}
	if t := dash(line[start[4]:end[4]]); t != nil {
		if v.mod, ok = parseTime(t); !ok {
			return fmt.Errorf("%w: bad last_modification %q", errFormat, clip(t))
		}
	}
	if n < 6 {
		return nil // version 1: never canonical, so a write restores the layout
	}
	if t := dash(line[start[5]:end[5]]); t != nil {
		if v.due, ok = parseTime(t); !ok {
			return fmt.Errorf("%w: bad due %q", errFormat, clip(t))
		}
	}
	v.canonical = start[0] == 0 && start[2] == start[1]+SpiderWidth+1 && start[3] == end[2]+1 &&
		start[4] == start[3]+stateWidth+1 && start[5] == start[4]+timeWidth+1 && v.urlOff == start[5]+timeWidth+1
	return nil
}

// checkURL checks the url field: http(s), one field (no space, tab or
// CR), valid UTF-8. A canonical URL is printable ASCII, which settles all
// but the scheme eight bytes at a time.
func checkURL(u []byte) error {
	http := bytes.HasPrefix(u, []byte("http://")) || bytes.HasPrefix(u, []byte("https://"))
	switch {
	case http && printableASCII(u):
		return nil
	case len(u) == 0:
		return fmt.Errorf("%w: no url field", errFormat)
	case bytes.IndexByte(u, ' ') >= 0 || bytes.IndexByte(u, '\t') >= 0 || bytes.IndexByte(u, '\r') >= 0:
		return fmt.Errorf("%w: more than 7 fields", errFormat)
	case !http:
		return fmt.Errorf("%w: url %q is not http(s)", errFormat, clip(u))
	case !utf8.Valid(u):
		return fmt.Errorf("%w: not UTF-8", errFormat)
	}
	return nil
}

// skipSpaces returns the offset of the first byte at or after i that is
// not a space. The padding of a file field runs to tens of bytes, so it
// is skipped a word at a time.
func skipSpaces(b []byte, i int) int {
	const eight = 0x2020202020202020
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == eight {
		i += 8
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// printableASCII reports whether every byte of b is in '!'..'~', eight
// bytes at a time.
func printableASCII(b []byte) bool {
	const lo, hi = 0x2121212121212121, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		// A byte below 0x21 or at/above 0x7F sets its high bit in one of the two.
		if ((x-lo)|x|(x+0x0101010101010101))&hi != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x21 || c > 0x7E {
			return false
		}
	}
	return true
}

func parseState(b []byte) (State, bool) {
	for i, n := range stateNames {
		if n != "" && string(b) == n {
			return State(i), true
		}
	}
	return 0, false
}

func dash(b []byte) []byte {
	if len(b) == 1 && b[0] == '-' {
		return nil
	}
	return b
}

// atoi parses a level: 1 to 7 decimal digits.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 7 {
		return 0, false
	}
	return digits(b)
}

// digits parses b, decimal digits only.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseTime parses "2006-01-02T15:04:05Z" into unix seconds without
// time.Parse, whose generality a pass over millions of lines would pay for
// at every line.
func parseTime(b []byte) (int64, bool) {
	if len(b) != timeWidth || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return 0, false
	}
	y, ok1 := digits(b[0:4])
	mo, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	h, ok4 := digits(b[11:13])
	mi, ok5 := digits(b[14:16])
	s, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	days, ok := daysFromCivil(y, mo, d)
	if !ok {
		return 0, false // 31 February and friends
	}
	return days*86400 + int64(h*3600+mi*60+s), true
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm), and false for a day the month lacks.
func daysFromCivil(y, m, d int) (int64, bool) {
	if d > 28 {
		dim := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
		if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			dim = 29
		}
		if d > dim {
			return 0, false
		}
	}
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - 719468, true
}

// entry converts v to an Entry whose strings are copies.
func (v *view) entry() Entry {
	e := Entry{File: string(v.file), Spider: string(v.spider), Level: v.level, State: v.state, URL: string(v.url)}
	v.times(&e)
	return e
}

// alias returns v as an Entry whose strings share v's bytes. It must not
// outlive the scan step; Clone before keeping it.
func (v *view) alias() Entry {
	e := Entry{File: ustr(v.file), Spider: ustr(v.spider), Level: v.level, State: v.state, URL: ustr(v.url)}
	v.times(&e)
	return e
}

func (v *view) times(e *Entry) {
	if v.mod != 0 {
		e.Modified = time.Unix(v.mod, 0).UTC()
	}
	if v.due != 0 {
		e.Due = time.Unix(v.due, 0).UTC()
	}
}

func ustr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
