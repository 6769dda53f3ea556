package list

// This file holds the line format: the fields of a line, their widths, and
// how a line is written. parse.go reads a line back.

import (
	"strconv"
	"time"
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

// Entry is one line of the list.
type Entry struct {
	File     string    // path of the copy relative to the mirror root; "" = no copy
	Spider   string    // spider_id holding a claim on the line; "" = unclaimed
	Level    int       // link distance from a start URL (start URLs are 0)
	State    State     // see State
	Modified time.Time // time of the copy in the mirror, UTC, whole seconds; zero = none
	// Due is when the line is worth a visit, UTC, whole seconds; zero =
	// unknown. With no copy it is when the line was found; with a copy,
	// when the page is expected to have changed (internal/change), or the
	// copy's own time when a hub or a sitemap said the page changed since
	// (see Add.Hint). The claim policy reads it (internal/claim).
	Due time.Time
	URL string // canonical URL (internal/urlkey)
}

// Hinted reports whether something said the page changed after its copy
// was taken: a hub announced it, a sitemap gave a newer lastmod.
func (e *Entry) Hinted() bool {
	return !e.Due.IsZero() && !e.Modified.IsZero() && !e.Due.After(e.Modified)
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

// Header is the first line of every list file, format version 2.
// Version 1 had no due field; its lines are read as lines whose due is
// unknown, and written as version 2 when the file is next rewritten.
const Header = "# spider-list v2: file spider_id level state last_modification due url"

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
// separators and the padded spider, level, state and two time fields.
func fixedWidth(level int) int {
	return 1 + SpiderWidth + 1 + len(strconv.Itoa(level)) + 1 + stateWidth + 1 + timeWidth + 1 + timeWidth + 1
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
	dst = appendTime(dst, e.Modified)
	dst = append(dst, ' ')
	dst = appendTime(dst, e.Due)
	return append(dst, ' ')
}

// appendTime appends t as a time field, "-" padded if t is zero.
func appendTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return pad(append(dst, '-'), timeWidth-1)
	}
	return t.UTC().AppendFormat(dst, timeLayout)
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

// Clone returns e with strings of its own.
func (e Entry) Clone() Entry {
	e.File = string([]byte(e.File))
	e.Spider = string([]byte(e.Spider))
	e.URL = string([]byte(e.URL))
	return e
}
