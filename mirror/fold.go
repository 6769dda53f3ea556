package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Layout is a variant of the layout Path follows. The zero Layout is
// the default, the one Path uses.
type Layout struct {
	// FoldCase makes names safe on a case-insensitive file system (macOS
	// by default, a Samba or exFAT share, Windows): a name that is not
	// all lower case (strings.ToLower(strings.ToUpper(name)) != name, so
	// also "ſ" and "ς") gets "{" + 16 hex digits of the SHA-256 of the
	// name + "}" before its extension ("About.html" →
	// "About{8a9f…}.html"); a name whose part before the first '.' is a
	// Windows device name (CON, PRN, AUX, NUL, COM0–9, LPT0–9, in any
	// case) gets "{}" after that part ("con{}.html"); a name ending in
	// '.' or ' ' (which Windows drops) gets "{}" at the end. A canonical
	// URL never holds a raw '{', so names kept as they are and marked
	// names never meet, and names that differ only in case get different
	// hashes. Windows' other reserved characters (':', '?', '*', ...) are
	// not replaced: a Windows file system is not supported, a share that
	// folds case is.
	FoldCase bool
}

// Path is Path under layout l.
func (l Layout) Path(canonicalURL, mediaType string) (string, error) {
	u, err := split(canonicalURL)
	if err != nil {
		return "", err
	}
	return u.path(typeExt(mediaType), l.FoldCase)
}

// foldName applies the FoldCase rules to one component.
func foldName(name string) string {
	if !lowerASCII(name) && strings.ToLower(strings.ToUpper(name)) != name {
		sum := sha256.Sum256([]byte(name))
		stem, ext := name, ""
		if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 8 {
			stem, ext = name[:i], name[i:]
		}
		name = stem + "{" + hex.EncodeToString(sum[:8]) + "}" + ext
	}
	if stem, rest, dot := strings.Cut(name, "."); isDevice(stem) {
		name = stem + "{}"
		if dot {
			name += "." + rest
		}
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		name += "{}"
	}
	return name
}

// isDevice reports whether s names a Windows device, in any letter case.
func isDevice(s string) bool {
	if t := strings.TrimRight(s, " "); isASCII(t) && len(t) != 3 && len(t) != 4 && len(t) != 6 && len(t) != 7 {
		return false // most names, without upper-casing them
	}
	return isDeviceUpper(strings.TrimRight(strings.ToUpper(s), " "))
}

// isDeviceUpper reports whether s, upper-cased and without trailing
// spaces, is a Windows device name.
func isDeviceUpper(s string) bool {
	switch s {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(s) == 4 && (strings.HasPrefix(s, "COM") || strings.HasPrefix(s, "LPT")) && '0' <= s[3] && s[3] <= '9' {
		return true
	}
	for _, sup := range []string{"¹", "²", "³"} {
		if s == "COM"+sup || s == "LPT"+sup {
			return true
		}
	}
	return false
}

// lowerASCII reports whether s is ASCII without upper-case letters, which
// case folding leaves as it is.
func lowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
