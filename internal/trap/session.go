package trap

import "strings"

// Query keys that carry a session id whatever their value.
var sessionKeys = map[string]bool{
	"phpsessid": true, "jsessionid": true, "sessionid": true, "session_id": true, "sessid": true,
	"cfid": true, "cftoken": true, "aspsessionid": true,
}

// StripSessions returns the canonical URL u without its session ids (a
// ;jsessionid= path parameter, PHPSESSID=, sid= or s= with a long id,
// ...), as Heritrix's canonicalisation does: a site that puts the
// session in its links (phpBB, vBulletin and Java servers do, for a
// client without cookies) would otherwise be crawled once per session,
// without end. The page is the same without it.
func StripSessions(u string) string {
	base, query, hasQuery := strings.Cut(u, "?")
	if i := indexFold(base, ";jsessionid="); i >= 0 {
		base = base[:i]
	}
	if !hasQuery {
		return base
	}
	if !hasSession(query) {
		if len(base)+len("?")+len(query) == len(u) {
			return u // most URLs: nothing to strip, nothing to copy
		}
		return base + "?" + query
	}
	kept := make([]string, 0, 4)
	for p := range strings.FieldsFuncSeq(query, isParamSep) {
		if !isSession(p) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return base
	}
	return base + "?" + strings.Join(kept, "&")
}

func isParamSep(r rune) bool { return r == '&' || r == ';' }

// hasSession reports whether a parameter of the query carries a session
// id.
func hasSession(query string) bool {
	for p := range strings.FieldsFuncSeq(query, isParamSep) {
		if isSession(p) {
			return true
		}
	}
	return false
}

// isSession reports whether the query parameter p ("key=value") carries a
// session id.
func isSession(p string) bool {
	k, v, _ := strings.Cut(p, "=")
	k = strings.ToLower(k)
	return sessionKeys[k] || (k == "sid" || k == "s") && sessionLike(v)
}

// indexFold returns the index of the first instance of the lower-case
// ASCII sub in s, in any letter case, or -1. (strings.ToLower would move
// the indexes of a URL that is not valid UTF-8.)
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
