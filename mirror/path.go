package mirror

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spider-mirror/spider/internal/urlkey"
)

// ErrUnsafePath reports a name that could leave the mirror root or that does
// not follow the layout: every error from Path wraps it, and Write, ReadFile,
// Stat and Remove return it for a name Path could not have produced.
var ErrUnsafePath = errors.New("mirror: unsafe path")

// Limits of the layout; see the package doc.
const (
	maxName   = 200  // longest component kept as it is
	hashedLen = 220  // length a longer component is cut to, give or take 3
	maxPath   = 4096 // longest path Path returns
	emptySeg  = "{empty}"
	indexName = "index.html"
)

// Path maps a canonical http(s) URL (internal/urlkey) and the media type of
// its response ("text/html", "text/css; charset=utf-8", "" if unknown) to a
// slash-separated path relative to the mirror root, following the layout in
// the package doc. Path is pure. A result is always filepath.IsLocal, has no
// empty, "." or ".." component, no component longer than 255 bytes, no byte
// below 0x21, no DEL, no backslash and no '#'.
//
// Path rejects, with an error wrapping ErrUnsafePath, a string that cannot be
// a canonical URL: not http or https, no host, a raw byte outside 0x21–0x7E,
// a '#', a raw '"', '<', '>', '\\', '`', '{' or '}' in the path, a "." or ".."
// segment, or a result longer than 4096 bytes.
func Path(canonicalURL, mediaType string) (string, error) {
	return Layout{}.Path(canonicalURL, mediaType)
}

// ReserveLen returns an upper bound of len(Path(canonicalURL, t)) over every
// media type t: the list reserves this many bytes for the file field of a
// line so the path can be filled in later in place. Path depends on t only
// through the extension it may append (".html", ".css" or none), so this is
// the exact maximum. It bounds the paths of every Layout, so that one list
// serves a mirror in either. It returns 0 when Path fails for every t.
func ReserveLen(canonicalURL string) int {
	u, err := split(canonicalURL)
	if err != nil {
		return 0
	}
	n := 0
	for _, fold := range [...]bool{false, true} {
		for _, ext := range [...]string{"", ".html", ".css"} {
			if p, err := u.path(ext, fold); err == nil {
				n = max(n, len(p))
			}
		}
	}
	return n
}

// parts is a canonical URL cut into what the layout uses. The scheme is
// dropped: http and https share a host directory, as in wget.
type parts struct {
	host     string   // host[:port]
	segs     []string // path segments; the last is the file name, "" for a directory URL
	query    string
	hasQuery bool // a '?' was present, maybe with an empty query
}

func split(raw string) (parts, error) {
	bad := func(why string) (parts, error) {
		return parts{}, fmt.Errorf("%w: %s: %q", ErrUnsafePath, why, clip(raw))
	}
	if len(raw) > urlkey.MaxLen {
		return bad("url too long")
	}
	rest, ok := strings.CutPrefix(raw, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "https://"); !ok {
			return bad("not an http or https url")
		}
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c < 0x21 || c > 0x7e || c == '#' {
			return bad("not a canonical url")
		}
	}
	var u parts
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return bad("no path")
	}
	u.host, rest = rest[:slash], rest[slash+1:]
	if u.host == "" || strings.ContainsAny(u.host, `%?\@`) {
		return bad("bad host")
	}
	var p string
	p, u.query, u.hasQuery = strings.Cut(rest, "?")
	if strings.ContainsAny(p, "\"<>\\`{}") {
		return bad("not a canonical path")
	}
	u.segs = strings.Split(p, "/")
	for _, s := range u.segs {
		if s == "." || s == ".." {
			return bad("dot segment")
		}
	}
	return u, nil
}

// path returns the path of u with the media type's extension ext, with
// names made safe for a case-insensitive file system if fold is set.
func (u parts) path(ext string, fold bool) (string, error) {
	component := component
	if fold {
		component = func(name string) string { return shorten(foldName(name)) }
	}
	var b strings.Builder
	n := len(u.host) + len(u.query) + len(ext) + len(indexName) + 8
	for _, s := range u.segs {
		n += len(s) + 1
	}
	b.Grow(n) // one allocation for most names
	b.WriteString(component(hostName(u.host)))
	last := len(u.segs) - 1
	for _, s := range u.segs[:last] {
		b.WriteByte('/')
		if s == "" {
			b.WriteString(emptySeg)
		} else {
			b.WriteString(component(decodeSegment(s)))
		}
	}
	name := indexName
	if u.segs[last] != "" {
		name = decodeSegment(u.segs[last])
	}
	if u.hasQuery {
		name += "?" + escapeQuery(u.query)
	}
	if ext != "" && !hasExt(name, ext) {
		name += ext
	}
	b.WriteByte('/')
	b.WriteString(component(name))
	if b.Len() > maxPath {
		return "", fmt.Errorf("%w: path longer than %d bytes", ErrUnsafePath, maxPath)
	}
	return b.String(), nil
}

// hostName is the host directory: host[:port] as in the URL, except that the
// hosts "." and ".." (valid WHATWG domains) become "%2E" and "%2E%2E", the
// '.' that starts any other host becomes "%2E" (".spider" is the mirror's
// own directory), and the '.' of a host ending in ".html" becomes "%2E"
// (the mirror's root pages are index.html, recent.html, archive.html). A
// host never holds a raw '%', so no other host maps there.
func hostName(h string) string {
	switch h {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	if strings.HasPrefix(h, ".") {
		h = "%2E" + h[1:]
	}
	if base, ok := strings.CutSuffix(h, ".html"); ok {
		h = base + "%2Ehtml"
	}
	return h
}

// typeExt returns the extension the media type requires: ".html" for HTML,
// ".css" for CSS, "" for anything else.
func typeExt(mediaType string) string {
	t, _, _ := strings.Cut(mediaType, ";")
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "text/html", "application/xhtml+xml":
		return ".html"
	case "text/css":
		return ".css"
	}
	return ""
}

// hasExt reports whether name already ends in ext, in any letter case; for
// ".html" a ".htm" ending counts too.
func hasExt(name, ext string) bool {
	if len(name) >= len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext) {
		return true
	}
	return ext == ".html" && hasExt(name, ".htm")
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
