package sitetest

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
)

var (
	versionRE  = regexp.MustCompile(`<meta name="x-version" content="(\d+)">`)
	markLineRE = regexp.MustCompile(`<meta name="x-version" content="\d+">\n`)
)

// servedVersions fetches every path of s and returns the version each HTML
// page's marker gives (0 for a page without one), and the bodies.
func servedVersions(t *testing.T, s *Site) (map[string]int, map[string][]byte) {
	t.Helper()
	vers, bodies := map[string]int{}, map[string][]byte{}
	for _, p := range s.Paths() {
		w := get(t, s.Handler(), "GET", p)
		if w.Code != 200 {
			t.Fatalf("GET %s: %d", p, w.Code)
		}
		bodies[p] = w.Body.Bytes()
		if m := versionRE.FindAllSubmatch(w.Body.Bytes(), -1); len(m) == 1 {
			vers[p], _ = strconv.Atoi(string(m[0][1]))
		} else if len(m) > 1 {
			t.Fatalf("GET %s: %d version markers", p, len(m))
		}
	}
	return vers, bodies
}

// TestVersionsAgreeWithBodies checks that Versions counts the changes of
// every path's body, and that with Versioned each HTML page carries its
// version, through every kind of mutation.
func TestVersionsAgreeWithBodies(t *testing.T) {
	for _, shape := range []Shape{Forum, Articles} {
		t.Run(shape.String(), func(t *testing.T) {
			s := New(Options{Shape: shape, Topics: 40, Now: newClock().Now, Versioned: true})
			plain := New(Options{Shape: shape, Topics: 40, Now: newClock().Now})
			dir := shape.topicDir()
			steps := []func(*Site){
				func(s *Site) {},
				func(s *Site) { s.AddTopic("New one") },
				func(s *Site) { s.EditTopic(livePath(t, s, dir, 3)) },
				func(s *Site) { s.Announce(livePath(t, s, dir, 20)) },
				func(s *Site) { s.Delete(livePath(t, s, dir, 30)) },
				func(s *Site) { s.EditTopic(livePath(t, s, dir, 3)) },
			}
			var prevVers map[string]int
			var prevBodies map[string][]byte
			for i, step := range steps {
				step(s)
				step(plain)
				vers := s.Versions()
				served, bodies := servedVersions(t, s)
				_, plainBodies := servedVersions(t, plain)
				for p, v := range vers {
					html := bytes.HasPrefix(bodies[p], []byte("<!DOCTYPE html>"))
					if html && served[p] != v {
						t.Errorf("step %d: %s carries version %d, Versions says %d", i, p, served[p], v)
					}
					if !html && served[p] != 0 {
						t.Errorf("step %d: %s is not HTML but carries a version", i, p)
					}
					// Without the marker the body is the unversioned site's.
					if !bytes.Equal(markLineRE.ReplaceAll(bodies[p], nil), plainBodies[p]) {
						t.Errorf("step %d: %s differs from the unversioned site beyond its marker", i, p)
					}
					old, seen := prevVers[p]
					changed := !seen || !bytes.Equal(prevBodies[p], plainBodies[p])
					switch {
					case !seen && v < 1:
						t.Errorf("step %d: new path %s has version %d", i, p, v)
					case seen && changed && v != old+1:
						t.Errorf("step %d: %s changed, version %d → %d", i, p, old, v)
					case seen && !changed && v != old:
						t.Errorf("step %d: %s did not change, version %d → %d", i, p, old, v)
					}
				}
				prevVers, prevBodies = vers, plainBodies
			}
			if v := s.Versions()[livePath(t, s, dir, 3)]; v != 3 {
				t.Errorf("topic 3 edited twice: version %d, want 3", v)
			}
		})
	}
}
