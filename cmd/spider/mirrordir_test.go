package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

func TestChooseMirror(t *testing.T) {
	const rec, other = "/m/recorded", "/m/other"
	for _, tc := range []struct {
		name string
		f    mirrorFacts
		want mirrorChoice
		err  string
	}{
		{"first run, default", mirrorFacts{given: other}, mirrorChoice{dir: other, record: true}, ""},
		{"first run, given", mirrorFacts{given: other, explicit: true}, mirrorChoice{dir: other, record: true}, ""},
		{"first run into other files", mirrorFacts{given: other, givenForeign: true}, mirrorChoice{}, "is not a spider mirror"},
		{"recorded, none given", mirrorFacts{recorded: rec, recordedExists: true, given: other}, mirrorChoice{dir: rec}, ""},
		{"recorded, none given, foreign default", mirrorFacts{recorded: rec, recordedExists: true, given: other, givenForeign: true}, mirrorChoice{dir: rec}, ""},
		{"recorded, the same given", mirrorFacts{recorded: rec, recordedExists: true, given: rec, explicit: true}, mirrorChoice{dir: rec}, ""},
		{"recorded, another given", mirrorFacts{recorded: rec, recordedExists: true, given: other, explicit: true}, mirrorChoice{}, "records its mirror at /m/recorded"},
		{"recorded is gone: moved", mirrorFacts{recorded: rec, given: other, explicit: true}, mirrorChoice{dir: other, record: true, moved: true}, ""},
		{"recorded is gone, other files given", mirrorFacts{recorded: rec, given: other, explicit: true, givenForeign: true}, mirrorChoice{}, "records its mirror"},
	} {
		got, err := chooseMirror(tc.f, "/l/spider.list")
		if tc.err != "" {
			var he hintErr
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &he) || he.hint == "" {
				t.Errorf("%s: %+v, %v; want an error with a hint, %q", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// The first run records its mirror beside the list; readers find it from
// any directory without --mirror; a run with another --mirror is refused;
// a directory of other files (a Go package named mirror) is never made a
// mirror.
func TestListRecordsItsMirror(t *testing.T) {
	_, base := newSite(t, sitetest.Options{Topics: 3})
	dir := t.TempDir()
	code, out := spiderRun(t, dir, 2*time.Minute, "--profile", "fast", "--until-idle", "--delay", "0", "--mirror", "copy", "--start", base+"/")
	if code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, out)
	}
	path := filepath.Join(dir, "spider.list")
	rec, err := list.RecordedMirror(path)
	if want := filepath.Join(dir, "copy"); err != nil || rec != want {
		t.Fatalf("recorded mirror %q, %v; want %s", rec, err, want)
	}
	elsewhere := t.TempDir()
	code, out = spiderRun(t, elsewhere, time.Minute, "list", "check", "--list", path)
	if code != 0 || !strings.Contains(out, "every copy present") {
		t.Errorf("list check from elsewhere without --mirror: exit %d\n%s", code, out)
	}
	code, out = spiderRun(t, elsewhere, time.Minute, "show", "--list", path, base+"/")
	if code != 0 || strings.Contains(out, "MISSING") || !strings.Contains(out, rec) {
		t.Errorf("show from elsewhere without --mirror: exit %d\n%s", code, out)
	}
	code, out = spiderRun(t, dir, time.Minute, "--profile", "fast", "--until-idle", "--mirror", "other", "--start", base+"/")
	if code != exitFailure || !strings.Contains(out, "records its mirror at "+rec) || !strings.Contains(out, "hint:") {
		t.Errorf("run with another --mirror: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "other")); err == nil {
		t.Errorf("the refused run created its mirror directory")
	}

	// A fresh list in a directory whose ./mirror is a Go package.
	src := t.TempDir()
	os.Mkdir(filepath.Join(src, "mirror"), 0o755)
	os.WriteFile(filepath.Join(src, "mirror", "mirror.go"), []byte("package mirror\n"), 0o644)
	code, out = spiderRun(t, src, time.Minute, "--profile", "fast", "--until-idle", "--start", base+"/")
	if code != exitFailure || !strings.Contains(out, "is not a spider mirror") {
		t.Errorf("run into a Go package: exit %d\n%s", code, out)
	}
	if es, _ := os.ReadDir(filepath.Join(src, "mirror")); len(es) != 1 {
		t.Errorf("the Go package holds %d files after the refused run", len(es))
	}
}

// A spider that opens a new mirror never shows another spider, checking
// the same directory at that moment, a directory of files that is not a
// spider mirror: two spiders started together (cron) on a new list both
// run. Each round opens a new mirror while the test looks at it as
// often as it can until the open returns.
func TestNewMirrorNeverLooksForeign(t *testing.T) {
	for round := range 200 {
		dir := filepath.Join(t.TempDir(), "mirror")
		opened := make(chan error, 1)
		go func() {
			m, err := mirror.Open(dir)
			if err == nil {
				err = m.Close()
			}
			opened <- err
		}()
		for looking := true; looking; {
			select {
			case err := <-opened:
				if err != nil {
					t.Fatal(err)
				}
				looking = false
			default:
			}
			if foreignDir(dir) {
				t.Fatalf("round %d: a mirror being opened looks like a directory of other files", round)
			}
		}
	}
}
