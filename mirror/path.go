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

// Limits of the layout; see Path.
const (
	maxName   = 200  // longest component kept as it is
	hashedLen = 220  // length a longer component is cut to, give or take 3
	maxPath   = 4096 // longest path Path returns
	emptySeg  = "{empty}"
	indexName = "index.html"
)

// Path maps a canonical http(s) URL (internal/urlkey) and the media type of
// its response ("text/html", "text/css; charset=utf-8", "" if unknown) to a
// slash-separated name relative to the mirror root. Path is pure. Examples:
//
//	http://example.com/                    text/html  example.com/index.html
//	http://example.com/docs/               text/html  example.com/docs/index.html
//	http://example.com/about               text/html  example.com/about.html
//	http://example.com/a/b.htm             text/html  example.com/a/b.htm
//	https://example.com:8443/x.png         image/png  example.com:8443/x.png
//	http://example.com/page.php?id=1&x=2   text/html  example.com/page.php?id=1&x=2.html
//	http://example.com/s.css?v=3           text/css   example.com/s.css?v=3.css
//	http://example.com/dl?f=a/b%20c        ""         example.com/dl?f=a%2Fb%2520c
//	http://xn--mller-kva.de/caf%C3%A9      ""         xn--mller-kva.de/café
//	http://example.com/caf%c3%a9           ""         example.com/caf%c3%a9
//	http://example.com/a//b                ""         example.com/a/{empty}/b
//	http://[::1]:8080/                     text/html  [::1]:8080/index.html
//	http://index.html/                     text/html  index%2Ehtml/index.html
//	http://.spider/x                       ""         %2Espider/x
//
// The rules, in order:
//
//   - The first component is the URL's host[:port] exactly as in the
//     canonical URL: lower case, IDN in punycode, IPv6 in brackets, the
//     default port dropped, ':' before any other port (wget's unix mode; no
//     Windows escaping, the mirror is for Unix file systems). The scheme is
//     not part of the name. The hosts "." and ".." become "%2E" and
//     "%2E%2E"; the '.' that starts any other host, and the '.' of a host
//     ending in ".html", become "%2E", so that no host directory is named
//     like the root's own files.
//   - Each path segment is a component. Percent-escapes stay as written,
//     except that a run of upper-case escapes spelling one valid multi-byte
//     UTF-8 character is decoded for readability ("caf%C3%A9" → "café").
//     ASCII is never decoded, nor lower-case escapes, nor C1 controls,
//     White_Space, format characters (bidi overrides and isolates,
//     zero-width characters, U+FEFF, ...), noncharacters and the Specials
//     block (keptRanges, a fixed table).
//   - An empty segment (from "//") becomes "{empty}". A canonical path
//     percent-encodes '{', so no segment maps there. Canonical URLs have no
//     "." or ".." segment; Path rejects one.
//   - An empty last segment (a URL path ending in '/') becomes "index.html".
//   - A query, even an empty one, is appended to the file name after a '?'
//     (which a canonical path never holds raw), with '%', '/', '\\', '#'
//     and bytes outside 0x21–0x7E written as %XX, so a query is never more
//     than one component and can be read back.
//   - text/html and application/xhtml+xml add ".html", and text/css adds
//     ".css", unless the whole file name, query included, already ends in
//     it (".htm" counts for HTML, any letter case): a browser opening a
//     file takes its type from the end of its name (wget -E).
//   - A component longer than 200 bytes becomes a prefix of itself cut on a
//     UTF-8 boundary, '~', 16 hex digits of the SHA-256 of the whole
//     component, and its extension if at most 8 bytes; such names are
//     217–220 bytes, so never equal to a name of 200 bytes or fewer.
//   - A result longer than 4096 bytes (PATH_MAX) is refused.
//
// Why distinct URLs get distinct names: the host and the query are copied
// or escaped reversibly; decoding adds only non-ASCII bytes, which a
// canonical path never holds raw, so escaping them again in upper case gives
// the segment back; "{empty}", "%2E" and a '?' in a file name each use a
// byte that the canonical form never leaves raw in that place; and hashed
// names are longer than any name kept as it is.
//
// Every result is filepath.IsLocal and holds no empty, "." or ".." component,
// no component over 255 bytes, no control character, space, backslash or '#'
// (so the list file can store it as a space-separated field, and no page is
// ever named like a temp file). Whatever the URL ("..", "%2e%2e", "..%2f",
// backslashes, NUL, an absolute path, a long one), the result stays under
// the root: dot segments are refused, '/' and '\' never come out of an
// escape, and the mirror opens every name through an os.Root as well. A
// fuzz test (FuzzPath) checks that every result is local and that distinct
// URLs get distinct names, bar the aliases below.
//
// Windows device names (CON, NUL.txt, ...) are ordinary names on Unix and
// are kept by Path. On a case-insensitive file system URLs differing only in
// letter case would share a file under Path; Layout{FoldCase: true} (the
// case_insensitive_names option) marks every name that is not all lower case
// with a hash of it, and device names and names ending in '.' or ' ' with
// "{}", so that they stay apart there too (see Layout). ReserveLen bounds
// the paths of both layouts.
//
// A link to one of these files (for rewriting pages) must percent-encode at
// least '%', '?' and '#' in the name ("page.php%3Fid=1.html"), and start
// with "./" or "../" when its first segment holds a ':' ("../[::1]:8080/").
//
// Which URLs share a file: two distinct canonical URLs with the same media
// type get distinct paths, barring a SHA-256 prefix collision, except in
// these cases, all inherited from wget:
//
//   - http and https: http://h/p and https://h/p share h/p. (https://h:80/
//     and http://h:80 differ as h:80 and h.)
//   - directory index: /d/ and /d/index.html share d/index.html (also with
//     the same query: /d/?q and /d/index.html?q).
//   - added extension: a URL u served as HTML whose file name, query
//     included, ends in neither ".html" nor ".htm", and the URL u+".html"
//     share a name (/a and /a.html; /a?x and /a?x.html); likewise u served
//     as CSS and u+".css". With the index rule, /d/,
//     /d/index and /d/index.html are then all d/index.html as HTML.
//
// A file and a directory cannot have one name: /img (served as image/png,
// so named "img") and /img/a.png need "img" as both; whichever comes second
// fails to write with the file system's error (ENOTDIR, EEXIST or EISDIR),
// and neither is ever deleted to make room for the other. The .html and .css
// extensions make this impossible for pages: /foo as a page is foo.html,
// beside the directory foo of /foo/bar.
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
