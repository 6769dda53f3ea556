// Package urlkey gives every URL the one canonical spelling that the list
// stores and the mirror maps to a file, so that one page has one line.
//
// Canonicalisation is the WHATWG URL Standard's (github.com/nlnwa/whatwg-url),
// the parser a browser uses when it later opens the mirror, plus the safe
// normalisations a crawler needs for deduplication:
//
//   - scheme and host lower case, IDN hosts in punycode, IPv4 forms normalised;
//   - the scheme's default port dropped;
//   - dot segments ("." and "..", also percent-encoded) resolved;
//   - the fragment and any user:password dropped;
//   - characters a URL may not hold raw are percent-encoded.
//
// Deliberately not done, because each changes meaning on some sites: sorting
// query parameters, decoding %2F, dropping a trailing slash or "index.html",
// dropping "www.". Only http and https URLs are accepted.
//
// Functions here are pure and safe for concurrent use.
package urlkey

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/nlnwa/whatwg-url/canonicalizer"
	wurl "github.com/nlnwa/whatwg-url/url"
)

// MaxLen is the longest canonical URL accepted. Longer URLs are almost always
// crawler traps or garbage, and the list keeps one URL on one line.
const MaxLen = 4096

// ErrScheme reports a URL whose scheme is not http or https.
var ErrScheme = errors.New("urlkey: scheme must be http or https")

// ErrTooLong reports a URL longer than MaxLen once canonical.
var ErrTooLong = errors.New("urlkey: url too long")

var canon = canonicalizer.New(
	canonicalizer.WithRemoveFragment(),
	canonicalizer.WithRemoveUserInfo(),
)

// Parse returns the canonical form of an absolute http or https URL.
func Parse(raw string) (string, error) {
	if alreadyCanonical(raw) {
		return raw, nil
	}
	if !hasScheme(strings.TrimSpace(raw)) {
		// The parser's account of a missing scheme runs to three lines,
		// and it takes localhost:8080/ for a URL of scheme localhost; it
		// is the usual mistake (example.org/page), so say it plainly.
		return "", fmt.Errorf("urlkey: %q has no scheme (http:// or https://)", clip(raw))
	}
	u, err := canon.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", fmt.Errorf("urlkey: parse %q: %w", clip(raw), err)
	}
	return finish(u, raw)
}

// hasScheme reports whether raw starts with a scheme (RFC 3986: a letter,
// then letters, digits, +, - or ., then a colon), as http: in http:/x,
// that is not a host and port written without one (localhost:8080/; an
// address, 127.0.0.1:8080, starts with no letter).
func hasScheme(raw string) bool {
	i := strings.IndexByte(raw, ':')
	if i <= 0 || !isLetter(raw[0]) {
		return false
	}
	for _, c := range []byte(raw[1:i]) {
		if !isLetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	if s := strings.ToLower(raw[:i]); s == "http" || s == "https" {
		return true
	}
	port, _, _ := strings.Cut(raw[i+1:], "/")
	return port == "" || strings.Trim(port, "0123456789") != ""
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// Resolve resolves ref against the canonical absolute URL base, as a browser
// resolves an href on a page whose address is base, and returns the result's
// canonical form.
func Resolve(base, ref string) (string, error) {
	if s, ok := resolveFast(base, ref); ok {
		return s, nil
	}
	u, err := canon.ParseRef(base, strings.TrimSpace(ref))
	if err != nil {
		return "", fmt.Errorf("urlkey: resolve %q against %q: %w", clip(ref), clip(base), err)
	}
	return finish(u, ref)
}

func finish(u *wurl.Url, raw string) (string, error) {
	if s := u.Scheme(); s != "http" && s != "https" {
		return "", fmt.Errorf("%w: %q", ErrScheme, clip(raw))
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("urlkey: %q has no host", clip(raw))
	}
	s := u.Href(true)
	if len(s) > MaxLen {
		return "", fmt.Errorf("%w: %d bytes", ErrTooLong, len(s))
	}
	return s, nil
}

// Host returns the host[:port] of a canonical URL, the unit of politeness
// and of the mirror's top-level directories.
func Host(canonical string) string {
	rest, ok := strings.CutPrefix(canonical, "https://")
	if !ok {
		rest, _ = strings.CutPrefix(canonical, "http://")
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// Std converts a canonical URL to a net/url.URL for net/http. Canonical URLs
// are always valid for net/url, so an error here is a bug in the caller.
func Std(canonical string) (*url.URL, error) {
	return url.Parse(canonical)
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
