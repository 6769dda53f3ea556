package urlkey

import "strings"

// alreadyCanonical reports, conservatively, that s is a URL the WHATWG
// canonicaliser would return unchanged, so Parse can skip the parser and
// its many allocations: what an import of an exported list or a sitemap
// dump mostly holds. It never decides anything the parser would
// decide differently; FuzzAlreadyCanonical checks exactly that. Anything
// unusual (IDN, numeric hosts, escapes of dots, characters the parser
// encodes) answers false and goes through the parser.
func alreadyCanonical(s string) bool {
	var rest string
	switch {
	case strings.HasPrefix(s, "http://"):
		rest = s[len("http://"):]
	case strings.HasPrefix(s, "https://"):
		rest = s[len("https://"):]
	default:
		return false
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 || len(s) > MaxLen {
		return false
	}
	host, path := rest[:slash], rest[slash:]
	if port := strings.IndexByte(host, ':'); port >= 0 {
		p := host[port+1:]
		if len(p) == 0 || len(p) > 5 || p[0] == '0' || p == "80" || p == "443" {
			return false // default ports are dropped; leading zeros are rewritten
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
		}
		host = host[:port]
	}
	if !plainHost(host) && !plainIPv4(host) {
		return false
	}
	q := strings.IndexByte(path, '?')
	query := ""
	if q >= 0 {
		path, query = path[:q], path[q+1:]
	}
	return plainPath(path) && plainQuery(query)
}

// plainHost: lower-case letters, digits, '-' and inner dots, the last
// label starting with a letter (WHATWG reads a host whose last label is a
// number, decimal or 0x-hex, as an IPv4 address) and no punycode.
func plainHost(h string) bool {
	if h == "" || h[0] == '.' || h[len(h)-1] == '.' || strings.Contains(h, "..") || strings.Contains(h, "xn--") {
		return false
	}
	if last := h[strings.LastIndexByte(h, '.')+1:]; last[0] < 'a' || last[0] > 'z' {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// plainIPv4: four decimal numbers 0-255 without leading zeros, the form
// the parser gives an IPv4 address (127.0.0.1, a local test site's host).
func plainIPv4(h string) bool {
	if strings.Count(h, ".") != 3 {
		return false
	}
	for p := range strings.SplitSeq(h, ".") {
		if p == "" || len(p) > 3 || len(p) > 1 && p[0] == '0' {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// plainPath: safe characters and well-formed escapes, no dot segments
// (also escaped ones: no escape of '.' at all).
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&()*+,;=:@/", c) >= 0:
		case c == '%':
			if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) || p[i+1] == '2' && (p[i+2] == 'e' || p[i+2] == 'E') {
				return false
			}
		default:
			return false
		}
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// plainQuery: safe characters and well-formed escapes.
func plainQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&()*+,;=:@/?", c) >= 0:
		case c == '%':
			if i+2 >= len(q) || !isHex(q[i+1]) || !isHex(q[i+2]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
