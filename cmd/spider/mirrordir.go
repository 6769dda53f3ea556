package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// Which mirror a list is used with. A list records its mirror (an
// absolute path, in LIST.mirror) the first time a spider runs on it, so
// that status, show and list check find the mirror from anywhere, and a
// spider started from another directory, or with another config, cannot
// start a second mirror of the same list by mistake.

// mirrorFacts is what the choice of a run's mirror depends on.
type mirrorFacts struct {
	recorded       string // the mirror the list records, "" if none
	recordedExists bool
	given          string // the --mirror flag's, the config's, or the default, made absolute
	explicit       bool   // given came from the flag or the config
	givenForeign   bool   // given holds files and is not a spider mirror (no .spider/)
}

// mirrorChoice is the mirror a run uses, and whether to record it.
type mirrorChoice struct {
	dir    string
	record bool
	moved  bool // the recorded mirror is gone, and given replaces it
}

// chooseMirror decides the mirror of a run on the list at listPath: the
// recorded one unless another is given; a given one that differs from
// the recorded one only if the recorded one is gone (the mirror was
// moved); never, as a list's first mirror, a directory of other files.
func chooseMirror(f mirrorFacts, listPath string) (mirrorChoice, error) {
	switch {
	case f.recorded == "" && f.givenForeign:
		return mirrorChoice{}, hintErr{fmt.Errorf("mirror directory %s holds files and is not a spider mirror (it has no .spider/)", f.given),
			"pass --mirror with a new or empty directory, or the mirror this list was made with"}
	case f.recorded == "":
		return mirrorChoice{dir: f.given, record: true}, nil
	case !f.explicit || f.given == f.recorded:
		return mirrorChoice{dir: f.recorded}, nil
	case !f.recordedExists && !f.givenForeign:
		return mirrorChoice{dir: f.given, record: true, moved: true}, nil
	default:
		return mirrorChoice{}, hintErr{fmt.Errorf("the list %s records its mirror at %s; --mirror (or the config) says %s", listPath, f.recorded, f.given),
			fmt.Sprintf("drop --mirror (and the config's mirror) to use %s; if the list is to use %s from now on, remove %s and run again",
				f.recorded, f.given, list.MirrorRecordPath(listPath))}
	}
}

// runMirror returns the mirror directory of a run on the list at
// listPath (see chooseMirror), and a function that records it once the
// mirror has been opened.
func runMirror(listPath string, s *Settings, log *slog.Logger) (string, func() error, error) {
	recorded, err := list.RecordedMirror(listPath)
	if err != nil {
		return "", nil, hintErr{err, "fix or remove that file: it names the list's mirror"}
	}
	given, err := filepath.Abs(s.Mirror)
	if err != nil {
		return "", nil, err
	}
	f := mirrorFacts{recorded: recorded, given: given, explicit: s.MirrorSet, givenForeign: foreignDir(given)}
	if recorded != "" {
		_, err := os.Stat(recorded)
		f.recordedExists = !errors.Is(err, os.ErrNotExist)
	}
	c, err := chooseMirror(f, listPath)
	if err != nil {
		return "", nil, err
	}
	if c.moved {
		log.Warn("the list's mirror is gone from where it was recorded: recording the new place", "was", recorded, "now", c.dir)
	}
	record := func() error { return nil }
	if c.record {
		record = func() error { return list.RecordMirror(listPath, c.dir) }
	}
	return c.dir, record, nil
}

// foreignDir reports whether dir exists, holds files, and is not a
// spider mirror (it has no .spider/, which mirror.Open creates first).
func foreignDir(dir string) bool {
	es, err := os.ReadDir(dir)
	if err != nil || len(es) == 0 {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, mirror.Own))
	return err != nil
}

// readMirror returns the mirror directory a reader (show, list check)
// looks at: the one given, else the one the list records, else "mirror".
func readMirror(listPath, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	recorded, err := list.RecordedMirror(listPath)
	if err != nil || recorded != "" {
		return recorded, err
	}
	return "mirror", nil
}
