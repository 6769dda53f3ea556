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
//
// Cache busters go too: a time stamp the site writes into a link anew for
// every page view (isTimeStamp), as a bare parameter beside others
// (DokuWiki's task runner image, taskrunner.php?id=start&1795874888) or
// as jQuery's _=. Each view of a page would otherwise add one more URL to
// the list, and the page would never look unchanged.
func StripSessions(u string) string {
	base, query, hasQuery := strings.Cut(u, "?")
	if i := indexFold(base, ";jsessionid="); i >= 0 {
		base = base[:i]
	}
	if !hasQuery {
		return base
	}
	alone := !strings.ContainsAny(query, "&;")
	if !hasVolatile(query, alone) {
		if len(base)+len("?")+len(query) == len(u) {
			return u // most URLs: nothing to strip, nothing to copy
		}
		return base + "?" + query
	}
	kept := make([]string, 0, 4)
	for p := range strings.FieldsFuncSeq(query, isParamSep) {
		if !volatile(p, alone) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return base
	}
	return base + "?" + strings.Join(kept, "&")
}

// Volatile returns the parts of the canonical URL u that StripSessions
// removes, as u writes them ("1795874888", "_=1795874888123",
// "PHPSESSID=x1", ";jsessionid=ABC123"), or nil: what differs from one
// view of a page to the next in the links that carry them.
func Volatile(u string) []string {
	var parts []string
	base, query, hasQuery := strings.Cut(u, "?")
	if i := indexFold(base, ";jsessionid="); i >= 0 {
		parts = append(parts, base[i:])
	}
	if !hasQuery {
		return parts
	}
	alone := !strings.ContainsAny(query, "&;")
	for p := range strings.FieldsFuncSeq(query, isParamSep) {
		if volatile(p, alone) {
			parts = append(parts, p)
		}
	}
	return parts
}

func isParamSep(r rune) bool { return r == '&' || r == ';' }

// hasVolatile reports whether a parameter of the query is volatile
// (alone: the query has one parameter).
func hasVolatile(query string, alone bool) bool {
	for p := range strings.FieldsFuncSeq(query, isParamSep) {
		if volatile(p, alone) {
			return true
		}
	}
	return false
}

// volatile reports whether the query parameter p ("key=value") carries a
// session id, or a cache buster: a bare time stamp unless it is the
// query's only parameter (alone; "?1234567890" alone may name a page),
// or _= a time stamp.
func volatile(p string, alone bool) bool {
	k, v, hasValue := strings.Cut(p, "=")
	if !hasValue && !alone && isTimeStamp(k) || k == "_" && isTimeStamp(v) {
		return true
	}
	k = strings.ToLower(k)
	return sessionKeys[k] || (k == "sid" || k == "s") && sessionLike(v)
}

// isTimeStamp reports whether s is a Unix time in this century, in seconds
// (10 digits) or milliseconds (13), as cache busters write it.
func isTimeStamp(s string) bool {
	if len(s) != 10 && len(s) != 13 || !digitsOnly(s) {
		return false
	}
	lo, hi := "1000000000", "4102444800" // 2001-09-09 and 2100-01-01
	if len(s) == 13 {
		lo, hi = lo+"000", hi+"000"
	}
	return s >= lo && s < hi
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
