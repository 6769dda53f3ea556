package urlkey

import "strings"

// resolveFast resolves the references pages hold most (an absolute path
// "/a/b?q", a query "?page=2", a fragment "#top", a relative path "b/c" or
// "../media/1.png") against a canonical base without the WHATWG parser,
// which allocates heavily for every link. Like alreadyCanonical it is
// conservative: ok is false for anything it is not sure the parser would
// resolve to the same string (FuzzResolveFast checks that), and the caller
// then uses the parser.
func resolveFast(base, ref string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(base, "http://"):
		rest = base[len("http://"):]
	case strings.HasPrefix(base, "https://"):
		rest = base[len("https://"):]
	default:
		return "", false
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 || strings.ContainsAny(base, "#\\") {
		return "", false
	}
	origin := base[:len(base)-len(rest)+slash]
	basePath := rest[slash:]
	if q := strings.IndexByte(basePath, '?'); q >= 0 {
		basePath = basePath[:q]
	}
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref = ref[:i] // the fragment is dropped anyway
	}
	var out string
	switch {
	case ref == "":
		out = origin + basePath + base[len(origin)+len(basePath):]
	case ref[0] == '?':
		if !plainQuery(ref[1:]) {
			return "", false
		}
		out = origin + basePath + ref
	case ref[0] == '/':
		if strings.HasPrefix(ref, "//") {
			return "", false // another host
		}
		out = origin + ref
	default:
		c := ref[0]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return "", false
		}
		if i := strings.IndexAny(ref, ":/?"); i >= 0 && ref[i] == ':' {
			return "", false // may be a scheme
		}
		out = origin + basePath[:strings.LastIndexByte(basePath, '/')+1] + ref
	}
	path, query, q := strings.Cut(out[len(origin):], "?")
	if dots(path) {
		if strings.Contains(path, "%2e") || strings.Contains(path, "%2E") {
			return "", false // the parser reads it as a dot, which removeDots would not
		}
		path = removeDots(path)
		if out = origin + path; q {
			out += "?" + query
		}
	}
	if len(out) > MaxLen || !plainPath(path) || !plainQuery(query) {
		return "", false
	}
	return out, true
}

// dots reports whether the path p ("/...") has a segment "." or "..".
func dots(p string) bool {
	return strings.Contains(p, "/./") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
}

// removeDots applies the segments "." and ".." of the path p ("/...") as
// the WHATWG path state does: ".." drops the segment before it (none at
// the root), "." is dropped, and either as the last segment leaves the
// path ending in "/". A path with escaped dots ("%2e") is the parser's.
func removeDots(p string) string {
	segs := strings.Split(p[1:], "/")
	out := segs[:0]
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case ".":
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return "/" + strings.Join(out, "/")
}
