package list

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// State is what the list knows about a URL's copy in the mirror.
type State uint8

// The states, in the order a URL usually meets them. See the package doc.
const (
	Found      State = iota + 1 // known, no copy yet
	Claimed                     // no copy yet, being fetched by the line's spider
	Downloaded                  // the mirror holds a copy
	Archived                    // the site answered 404/410; the copy (if any) is kept
	Error                       // the last fetch failed; the copy (if any) is kept
	Disallowed                  // robots.txt forbids fetching it; the copy (if any) is kept
)

var stateNames = [...]string{Found: "found", Claimed: "claimed", Downloaded: "downloaded", Archived: "archived", Error: "error", Disallowed: "disallowed"}

func (s State) String() string {
	if int(s) < len(stateNames) && stateNames[s] != "" {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

func parseStateBytes(b []byte) (State, bool) {
	for i, n := range stateNames {
		if n != "" && string(b) == n {
			return State(i), true
		}
	}
	return 0, false
}

// Entry is one line of the list.
type Entry struct {
	File     string    // path of the copy relative to the mirror root; "" = no copy
	Spider   string    // spider_id holding a claim on the line; "" = unclaimed
	Level    int       // link distance from a start URL (start URLs are 0)
	State    State     // see State
	Modified time.Time // time of the copy in the mirror, UTC, whole seconds; zero = none
	URL      string    // canonical URL (internal/urlkey)
}

// MaxLevel is the deepest level a line may have (7 digits).
const MaxLevel = 9_999_999

// Field widths of the fixed part of a line. SpiderWidth also caps spider ids.
const (
	SpiderWidth = 12
	stateWidth  = 10 // len("downloaded")
	timeWidth   = 20 // len("2006-01-02T15:04:05Z")
	// MaxLine caps one line (the read buffer); urlkey.MaxLen plus a
	// reserved file field fit many times over.
	MaxLine = readBuf
)

const timeLayout = "2006-01-02T15:04:05Z"

// Header is the first line of every list file, format version 1.
const Header = "# spider-list v1: file spider_id level state last_modification url"

// ValidSpiderID reports whether id may name a spider: 1 to SpiderWidth
// characters from [A-Za-z0-9_.-], not starting with '-' or '.'.
func ValidSpiderID(id string) bool {
	if len(id) == 0 || len(id) > SpiderWidth || id[0] == '-' || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// fixedWidth is the length of a line's prefix after the file field: the
// separators and the padded spider, level, state and time fields.
func fixedWidth(level int) int {
	return 1 + SpiderWidth + 1 + len(strconv.Itoa(level)) + 1 + stateWidth + 1 + timeWidth + 1
}

// appendPrefix appends e's fields before the URL, the file field padded to
// width bytes (or its own length if longer).
func appendPrefix(dst []byte, e *Entry, width int) []byte {
	start := len(dst)
	dst = appendField(dst, e.File)
	dst = pad(dst, width-(len(dst)-start))
	dst = append(dst, ' ')
	s := len(dst)
	dst = appendField(dst, e.Spider)
	dst = pad(dst, SpiderWidth-(len(dst)-s))
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(e.Level), 10)
	dst = append(dst, ' ')
	s = len(dst)
	dst = append(dst, e.State.String()...)
	dst = pad(dst, stateWidth-(len(dst)-s))
	dst = append(dst, ' ')
	if e.Modified.IsZero() {
		dst = append(dst, '-')
		dst = pad(dst, timeWidth-1)
	} else {
		dst = e.Modified.UTC().AppendFormat(dst, timeLayout)
	}
	return append(dst, ' ')
}

// AppendLine appends e as one line of the list, newline included, with its
// file field padded to width bytes so the copy's path can be filled in place.
func AppendLine(dst []byte, e *Entry, width int) []byte {
	dst = appendPrefix(dst, e, width)
	dst = append(dst, e.URL...)
	return append(dst, '\n')
}

func appendField(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, '-')
	}
	return append(dst, s...)
}

func pad(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

// errFormat is wrapped by every line format error.
var errFormat = errors.New("malformed line")

// view is a parsed line whose byte fields alias the read buffer.
type view struct {
	file, spider, url []byte
	level             int
	state             State
	mod               int64 // unix seconds; 0 = none
	urlOff            int   // offset of the URL in the line = length of the prefix
}

// parseLine parses one line without its newline. It allocates nothing.
// Lines as this package writes them (fixed-width fields after the file
// field) take a fast path that finds the fields from the right; any other
// spacing takes the general one. Both accept exactly the same lines.
func parseLine(line []byte, v *view) error {
	if parseCanonical(line, v) {
		return nil
	}
	return parseFields(line, v)
}

// parseCanonical parses a line laid out exactly as appendPrefix writes it,
// or reports false. It reads left to right: the file field ends at the
// first space, the padding ends at the spider field, and every field after
// it has a fixed width.
func parseCanonical(line []byte, v *view) bool {
	fileEnd := bytes.IndexByte(line, ' ')
	if fileEnd < 1 {
		return false
	}
	sp := fileEnd + 1
	for sp < len(line) && line[sp] == ' ' {
		sp++
	}
	lv := sp + SpiderWidth + 1
	if lv >= len(line) || line[lv-1] != ' ' {
		return false
	}
	lvEnd := lv
	for lvEnd < len(line) && line[lvEnd] >= '0' && line[lvEnd] <= '9' {
		lvEnd++
	}
	st := lvEnd + 1
	t := st + stateWidth + 1
	u := t + timeWidth + 1
	if lvEnd == lv || u >= len(line) || line[lvEnd] != ' ' || line[t-1] != ' ' || line[u-1] != ' ' {
		return false
	}
	file, url := line[:fileEnd], line[u:]
	if !(printableASCII(url) && (bytes.HasPrefix(url, []byte("http://")) || bytes.HasPrefix(url, []byte("https://"))) || validURL(url)) {
		return false
	}
	if bytes.IndexByte(file, 0) >= 0 || !utf8.Valid(file) {
		return false
	}
	spider := bytes.TrimRight(line[sp:lv-1], " ")
	if bytes.IndexByte(spider, ' ') >= 0 {
		return false
	}
	spider = dash(spider)
	if spider != nil && !ValidSpiderID(string(spider)) {
		return false
	}
	level, ok := atoi(line[lv:lvEnd])
	if !ok {
		return false
	}
	stName := bytes.TrimRight(line[st:st+stateWidth], " ")
	state, ok := parseStateBytes(stName)
	if !ok || state == Claimed && spider == nil {
		return false
	}
	var mod int64
	if tb := line[t : t+timeWidth]; tb[0] == '-' {
		if !allSpaces(tb[1:]) {
			return false
		}
	} else if mod, ok = parseTime(tb); !ok {
		return false
	}
	*v = view{file: dash(file), spider: spider, url: url, level: level, state: state, mod: mod, urlOff: u}
	return true
}

// printableASCII reports whether every byte of b is in '!'..'~', eight
// bytes at a time: a canonical URL always is, and the check is the whole
// validation such a URL needs.
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

// validURL checks the url field: http(s), no tab or CR, valid UTF-8 (the
// caller found it after the last space). IndexByte and utf8.Valid work a
// word at a time, which matters at millions of lines a pass.
func validURL(u []byte) bool {
	return (bytes.HasPrefix(u, []byte("http://")) || bytes.HasPrefix(u, []byte("https://"))) &&
		bytes.IndexByte(u, '\t') < 0 && bytes.IndexByte(u, '\r') < 0 && utf8.Valid(u)
}

var spaces = bytes.Repeat([]byte{' '}, 256)

// allSpaces reports whether b holds only spaces.
func allSpaces(b []byte) bool {
	for len(b) > len(spaces) {
		if !bytes.Equal(b[:len(spaces)], spaces) {
			return false
		}
		b = b[len(spaces):]
	}
	return bytes.Equal(b, spaces[:len(b)])
}

// parseFields parses a line with any spacing between its fields.
func parseFields(line []byte, v *view) error {
	var f [5][]byte
	i := 0
	for k := range f {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' {
			j++
		}
		if j == i {
			return fmt.Errorf("%w: %d fields, want 6", errFormat, k)
		}
		f[k] = line[i:j]
		i = j
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	v.urlOff = i
	v.url = line[i:]
	if len(v.url) == 0 {
		return fmt.Errorf("%w: 5 fields, want 6", errFormat)
	}
	if bytes.IndexByte(v.url, ' ') >= 0 || bytes.IndexByte(v.url, '\t') >= 0 || bytes.IndexByte(v.url, '\r') >= 0 {
		return fmt.Errorf("%w: more than 6 fields", errFormat)
	}
	if !bytes.HasPrefix(v.url, []byte("http://")) && !bytes.HasPrefix(v.url, []byte("https://")) {
		return fmt.Errorf("%w: url %q is not http(s)", errFormat, clip(v.url))
	}
	if !utf8.Valid(line) {
		return fmt.Errorf("%w: not UTF-8", errFormat)
	}
	v.file = dash(f[0])
	if bytes.IndexByte(v.file, 0) >= 0 {
		return fmt.Errorf("%w: file holds NUL", errFormat)
	}
	v.spider = dash(f[1])
	if v.spider != nil && !ValidSpiderID(string(v.spider)) {
		return fmt.Errorf("%w: bad spider_id %q", errFormat, clip(v.spider))
	}
	lv, ok := atoi(f[2])
	if !ok {
		return fmt.Errorf("%w: bad level %q", errFormat, clip(f[2]))
	}
	v.level = lv
	if v.state, ok = parseStateBytes(f[3]); !ok {
		return fmt.Errorf("%w: unknown state %q", errFormat, clip(f[3]))
	}
	if v.state == Claimed && v.spider == nil {
		return fmt.Errorf("%w: state claimed without spider_id", errFormat)
	}
	if t := dash(f[4]); t == nil {
		v.mod = 0
	} else if v.mod, ok = parseTime(t); !ok {
		return fmt.Errorf("%w: bad last_modification %q", errFormat, clip(f[4]))
	}
	return nil
}

func dash(b []byte) []byte {
	if len(b) == 1 && b[0] == '-' {
		return nil
	}
	return b
}

func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 7 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseTime parses "2006-01-02T15:04:05Z" into unix seconds, fast: the list
// holds millions of them and time.Parse would dominate a cycle.
func parseTime(b []byte) (int64, bool) {
	if len(b) != timeWidth || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return 0, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(b[0:4])
	mo, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	h, ok4 := num(b[11:13])
	mi, ok5 := num(b[14:16])
	s, ok6 := num(b[17:19])
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
	if v.mod != 0 {
		e.Modified = time.Unix(v.mod, 0).UTC()
	}
	return e
}

// ParseLine parses one line of a list file, without its newline.
func ParseLine(line string) (Entry, error) {
	var v view
	if err := parseLine([]byte(line), &v); err != nil {
		return Entry{}, err
	}
	return v.entry(), nil
}

// ParseError reports a malformed line of a list file.
type ParseError struct {
	Path string
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
