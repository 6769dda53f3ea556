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
	kept := make([]string, 0, 4)
	dropped := false
	for p := range strings.FieldsFuncSeq(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(p, "=")
		k = strings.ToLower(k)
		if sessionKeys[k] || (k == "sid" || k == "s") && sessionLike(v) {
			dropped = true
			continue
		}
		kept = append(kept, p)
	}
	switch {
	case !dropped:
		return base + "?" + query
	case len(kept) == 0:
		return base
	}
	return base + "?" + strings.Join(kept, "&")
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
