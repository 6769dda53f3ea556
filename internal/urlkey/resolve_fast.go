package urlkey

import "strings"

// resolveFast resolves the references pages hold most (an absolute path
// "/a/b?q", a query "?page=2", a fragment "#top", a relative path without
// dot segments "b/c") against a canonical base without the WHATWG parser,
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
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "", false
		}
		if i := strings.IndexAny(ref, ":/?"); i >= 0 && ref[i] == ':' {
			return "", false // may be a scheme
		}
		out = origin + basePath[:strings.LastIndexByte(basePath, '/')+1] + ref
	}
	path, query, _ := strings.Cut(out[len(origin):], "?")
	if len(out) > MaxLen || !plainPath(path) || !plainQuery(query) {
		return "", false
	}
	return out, true
}
