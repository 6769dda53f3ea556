package sitetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Versions returns the version of every path in Paths: 1 when the path was
// first served, plus one for every change of its body since (a page that
// vanished and came back with the same body keeps its version). With
// Options.Versioned an HTML page's body carries its version (VersionMeta).
func (s *Site) Versions() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]int, len(s.levels))
	for p := range s.levels {
		out[p] = s.pages[p].ver
	}
	return out
}

// digest is the hex of the first 8 bytes of body's SHA-256.
func digest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:8])
}

// VersionMeta is the name of the meta element that carries an HTML page's
// version with Options.Versioned: <meta name="x-version" content="N">.
const VersionMeta = "x-version"

// charsetMeta opens the head of every HTML page; the version marker
// follows it.
const charsetMeta = "<meta charset=\"utf-8\">\n"

// markVersion returns body with the version marker after its charset meta.
func markVersion(body []byte, ver int) []byte {
	i := bytes.Index(body, []byte(charsetMeta))
	if i < 0 {
		panic("sitetest: HTML page without its charset meta") // every page starts with newPage
	}
	i += len(charsetMeta)
	mark := fmt.Sprintf("<meta name=%q content=\"%d\">\n", VersionMeta, ver)
	return append(append(append([]byte(nil), body[:i]...), mark...), body[i:]...)
}
