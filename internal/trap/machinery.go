package trap

import (
	"net/url"
	"strings"
)

// Query keys whose presence alone makes a link machinery.
var machineryKeys = map[string]Family{
	"diff": Edit, "oldid": Edit, "curid": Edit, "redlink": Edit, "printable": Edit, "replytocom": Edit,
	"veaction": Edit, "mobileaction": Edit, "useskin": Edit, "uselang": Edit, "returnto": Accounts,
	"feed": Feeds, "feedformat": Feeds,
	"sort": Sort, "sortby": Sort, "sort_by": Sort, "orderby": Sort, "order_by": Sort, "order": Sort, "sortorder": Sort, "sort_order": Sort,
}

// Values of action= (MediaWiki, DokuWiki, phpBB, many others) by family.
var actions = map[string]Family{
	"edit": Edit, "submit": Edit, "history": Edit, "raw": Edit, "info": Edit, "delete": Edit, "protect": Edit,
	"unprotect": Edit, "watch": Edit, "unwatch": Edit, "purge": Edit, "rollback": Edit, "revert": Edit,
	"markpatrolled": Edit, "render": Edit, "credits": Edit, "diff": Edit, "revisions": Edit, "backlink": Edit,
	"recent": Edit, "source": Edit, "media": Edit, "export_raw": Edit, "export_xhtml": Edit, "export_xhtmlbody": Edit, "reply": Edit, "quote": Edit, "post": Edit, "print": Edit,
	"login": Accounts, "logout": Accounts, "register": Accounts, "profile": Accounts, "resendpwd": Accounts,
	"feed": Feeds, "rss": Feeds, "atom": Feeds,
}

// Last path segments (lower case, extension removed) by family.
var lastSegments = map[string]Family{
	"api.php": Edit, "xmlrpc.php": Edit, "posting.php": Edit, "opensearch_desc.php": Edit,
	"wp-login.php": Accounts, "ucp.php": Accounts, "login": Accounts, "logout": Accounts, "signin": Accounts,
	"signout": Accounts, "sign_in": Accounts, "sign_out": Accounts, "log_in": Accounts, "log_out": Accounts,
	"register": Accounts, "signup": Accounts, "sign_up": Accounts,
	"feed": Feeds, "rss": Feeds, "rss.xml": Feeds, "atom.xml": Feeds, "feed.xml": Feeds,
	"rss2": Feeds, "atom": Feeds, "comments.rss": Feeds, "feed.php": Feeds,
	"taskrunner.php": Beacons, "matomo.php": Beacons, "piwik.php": Beacons,
}

// Any path segment (lower case) by family.
var anySegments = map[string]Family{
	"wp-admin": Edit, "wp-json": Edit, "feed": Feeds,
}

// Machinery returns the family of the machinery the canonical URL u leads
// to and the sign it was known by, or "" if it leads to none.
func Machinery(u string) (Family, string) {
	_, path, query := splitURL(u)
	if f, sign := pathMachinery(path); f != "" {
		return f, sign
	}
	return queryMachinery(query)
}

// fileExt are extensions of files rather than of pages a server makes: a
// login or register name with one is a file of a source tree or a
// download (register.c, login.pdf), not an account page (register.php,
// login.jsf, login.do;jsessionid=…).
var fileExt = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".hpp": true, ".java": true, ".rs": true, ".go": true,
	".txt": true, ".md": true, ".rst": true, ".pdf": true, ".zip": true, ".gz": true, ".tgz": true,
	".bz2": true, ".xz": true, ".tar": true, ".png": true, ".jpg": true, ".gif": true, ".svg": true,
	".css": true, ".js": true,
}

func pathMachinery(path string) (Family, string) {
	low := strings.ToLower(path)
	if dec, err := url.PathUnescape(low); err == nil {
		low = dec
	}
	if strings.Contains(low, "/special:") {
		return Edit, "Special:"
	}
	trimmed := strings.Trim(low, "/")
	for s := range strings.SplitSeq(trimmed, "/") {
		if f, ok := anySegments[s]; ok {
			return f, "/" + s + "/"
		}
	}
	last := trimmed[strings.LastIndexByte(trimmed, '/')+1:]
	if f, ok := lastSegments[last]; ok {
		return f, "/" + last
	}
	if i := strings.LastIndexByte(last, '.'); i > 0 {
		ext := last[i:]
		switch ext {
		case ".rss", ".atom", ".rdf":
			return Feeds, ext
		}
		ext, _, _ = strings.Cut(ext, ";") // a path parameter: login.jsp;jsessionid=…
		if f, ok := lastSegments[last[:i]]; ok && f == Accounts && !fileExt[ext] {
			return f, "/" + last
		}
	}
	return "", ""
}

func queryMachinery(query string) (Family, string) {
	ps := params(query)
	for _, p := range ps {
		k, v := strings.ToLower(p[0]), strings.ToLower(p[1])
		if dec, err := url.QueryUnescape(v); err == nil {
			v = dec
		}
		switch {
		case k == "do" && v == "index":
			return Edit, "do=index" // DokuWiki's sitemap, one per page it is asked from
		case k == "action" || k == "do" || k == "mode":
			if f, ok := actions[v]; ok {
				return f, k + "=" + v
			}
		case k == "title" && strings.HasPrefix(v, "special:"):
			return Edit, "Special:"
		case k == "printable" && v != "yes":
			continue
		case k == "type" || k == "format":
			if v == "rss" || v == "atom" || v == "rss2" || v == "feed" {
				return Feeds, k + "=" + v
			}
		case (k == "c" || k == "o") && apacheSort(ps):
			return Sort, "?C=…;O=…"
		}
		if f, ok := machineryKeys[k]; ok {
			return f, k + "="
		}
	}
	return "", ""
}

// sessionLike reports whether v looks like a session id: 16 or more hex
// digits or letters and digits mixed (phpBB's sid=, vBulletin's s=).
func sessionLike(v string) bool {
	if len(v) < 16 {
		return false
	}
	digits, letters := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters = true
		default:
			return false
		}
	}
	return digits && letters
}

// apacheSort reports whether the query is an Apache directory listing's
// sort order: only the keys C and O (?C=N;O=D).
func apacheSort(ps [][2]string) bool {
	for _, p := range ps {
		if k := strings.ToUpper(p[0]); k != "C" && k != "O" || len(p[1]) != 1 {
			return false
		}
	}
	return true
}
