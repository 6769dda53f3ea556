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
	mark      = "{}" // where the layout added to a URL's own name
)

// Path maps a canonical http(s) URL (internal/urlkey) and the media type of
// its response ("text/html", "text/css; charset=utf-8", "" if unknown) to a
// slash-separated name relative to the mirror root. Path is pure. Examples:
//
//	http://example.com/                    text/html  example.com/index.html
//	http://example.com/docs/               text/html  example.com/docs/index.html
//	http://example.com/docs/index.html     text/html  example.com/docs/{}index.html
//	http://example.com/about               text/html  example.com/about{}.html
//	http://example.com/about.html          text/html  example.com/about.html
//	http://example.com/a/b.htm             text/html  example.com/a/b.htm
//	https://example.com:8443/x.png         image/png  example.com:8443/x.png
//	http://example.com/bin/report          application/pdf  example.com/bin/report{}
//	http://example.com/nul.txt             text/html  example.com/nul.txt{}.html
//	http://example.com/page.php?id=1&x=2   text/html  example.com/page.php?id=1&x=2{}.html
//	http://example.com/s.css?v=3           text/css   example.com/s.css?v=3{}.css
//	http://example.com/dl?f=a/b%20c        ""         example.com/dl?f=a%2Fb%2520c
//	http://xn--mller-kva.de/caf%C3%A9.png  ""         xn--mller-kva.de/café.png
//	http://example.com/caf%c3%a9.png       ""         example.com/caf%c3%a9.png
//	http://example.com/a//b.png            ""         example.com/a/{empty}/b.png
//	http://[::1]:8080/                     text/html  [::1]:8080/index.html
//	http://index.html/                     text/html  index%2Ehtml/index.html
//	http://.spider/x.js                    ""         %2Espider/x.js
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
//   - An empty last segment (a URL path ending in '/') becomes "index.html";
//     a last segment "index.html" of the URL's own becomes "{}index.html".
//   - A query, even an empty one, is appended to the file name after a '?'
//     (which a canonical path never holds raw), with '%', '/', '\\', '#',
//     '{', '}' and bytes outside 0x21–0x7E written as %XX, so a query is
//     never more than one component and can be read back.
//   - text/html and application/xhtml+xml add "{}.html", and text/css adds
//     "{}.css", unless the whole file name, query included, already ends in
//     ".html" or ".css" (".htm" counts for HTML, any letter case): a browser
//     opening a file takes its type from the end of its name (wget -E). A
//     name of any other type with neither a '.' nor a '?' gets "{}", so
//     that it is never the name of a directory too.
//   - "{}" thus marks where the layout added to a URL's own name. A
//     canonical path holds no raw brace and a query's are escaped, so a
//     name the layout added to never equals a URL's own name: /a as a page
//     is a{}.html, /a.html is a.html, /d/ is d/index.html and /d/index.html
//     d/{}index.html, /x as text/plain is x{} beside the directory x of
//     /x/y.html.
//   - A component longer than 200 bytes becomes a prefix of itself cut on a
//     UTF-8 boundary, '~', 16 hex digits of the SHA-256 of the whole
//     component, and its extension if at most 8 bytes; such names are
//     217–220 bytes, so never equal to a name of 200 bytes or fewer.
//   - A result longer than 4096 bytes (PATH_MAX) is refused.
//
// Why distinct URLs get distinct names: the host and the query are copied
// or escaped reversibly; decoding adds only non-ASCII bytes, which a
// canonical path never holds raw, so escaping them again in upper case gives
// the segment back; "{empty}", "%2E", a '?' in a file name and the "{}"
// marks each use a byte that the canonical form never leaves raw in that
// place; and hashed names are longer than any name kept as it is.
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
// Which URLs share a file: two distinct canonical URLs get distinct paths,
// whatever their media types, barring a SHA-256 prefix collision, except
// http and https: http://h/p and https://h/p share h/p, as in wget.
// (https://h:80/ and http://h:80 differ as h:80 and h.) Besides, the names
// one URL gets under different media types are its own: no other URL maps
// to any of them, so a file at a name a link guessed (internal/linkname)
// can lead to the URL's real one.
//
// A file and a directory of one name: a name the layout added to holds "{}"
// and a directory never does, so only a URL's own name with a '.' can be
// both, as in /v1.2 (served as text/plain) beside /v1.2/x; whichever
// comes second fails to write with the file system's error (ENOTDIR,
// EEXIST or EISDIR), and neither is ever deleted to make room for the
// other.
//
// Earlier versions named /a as a page a.html (now a{}.html), /x as another
// type x (now x{}), /d/index.html d/index.html (now d/{}index.html) and a
// query with a brace with the brace raw. A mirror written by them keeps
// those files: the spider writes each URL under its new name when it
// fetches it next (a line whose file is not one of its URL's names is
// fetched without a conditional request), and never deletes the old file,
// so a page not written since still leads to a copy.
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
	n := len(u.host) + len(u.query) + len(ext) + len(indexName) + 12
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
	name, added := u.fileName(ext)
	b.WriteByte('/')
	if fold && added != "" {
		// The mark stays outside what folding changes, so that it never
		// meets a mark of foldName's ("con.html" → "con{}.html").
		b.WriteString(shorten(foldName(name) + added))
	} else {
		b.WriteString(component(name + added))
	}
	if b.Len() > maxPath {
		return "", fmt.Errorf("%w: path longer than %d bytes", ErrUnsafePath, maxPath)
	}
	return b.String(), nil
}

// fileName returns the file name of u, from its last segment and query, and
// what the layout adds to it: mark+ext when the media type's extension ext
// is not already at the end of the name, mark alone for a name with
// neither a '.' nor a '?' that takes no extension (which could otherwise
// be a directory's name too), "" when the name is kept as it is. A
// directory URL's name is "index.html"; a last segment "index.html" of the
// URL's own gets mark before it.
func (u parts) fileName(ext string) (name, added string) {
	seg := u.segs[len(u.segs)-1]
	switch seg {
	case "":
		name = indexName
	case indexName:
		name = mark + indexName
	default:
		name = decodeSegment(seg)
	}
	if u.hasQuery {
		name += "?" + escapeQuery(u.query)
	}
	switch {
	case ext != "" && !hasExt(name, ext):
		added = mark + ext
	case ext == "" && !strings.ContainsAny(name, ".?"):
		added = mark
	}
	return name, added
}

// hostName is the host directory: host[:port] as in the URL, except that the
// hosts "." and ".." (valid WHATWG domains) become "%2E" and "%2E%2E", the
// '.' that starts any other host becomes "%2E" (".spider" is the mirror's
// own directory), and the '.' of a host ending in ".html" becomes "%2E"
// (the mirror's root pages are index.html, recent.html, archive.html,
// spider-account.html). A
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
