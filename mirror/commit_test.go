package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// TestCommitGroup stages groups below and above the syncfs threshold, fails
// some files before their rename, discards others, and checks that exactly
// the committed files appear, with their whole content, and no temp file
// is left.
func TestCommitGroup(t *testing.T) {
	for _, n := range []int{1, groupSync - 1, groupSync, 3 * groupSync} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m, dir := openTemp(t)
			if err := m.Write("h/old.html", []byte("old")); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			m.beforeRename = func(tmp string) error {
				if got, err := m.root.ReadFile(tmp); err == nil && strings.HasPrefix(string(got), "fail") {
					return boom
				}
				return nil
			}
			var staged, discarded []*Staged
			wantFail := map[*Staged]bool{}
			for i := range n {
				// Files spread over new directories, some sharing one.
				rel := fmt.Sprintf("h/d%d/sub/p%d.html", i%3, i)
				data := "page " + rel
				switch i % 4 {
				case 1:
					data = "fail " + rel
				case 2:
					rel = "h/old.html"
					data = "discarded"
				}
				s, err := m.Stage(rel, []byte(data))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := m.Stat(rel); rel != "h/old.html" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s visible before Commit: %v", rel, err)
				}
				if i%4 == 2 {
					discarded = append(discarded, s)
					continue
				}
				staged = append(staged, s)
				wantFail[s] = i%4 == 1
			}
			for _, s := range discarded {
				m.Discard(s)
			}
			errs := m.Commit(staged)
			for i, s := range staged {
				failed := errors.Is(errs[i], boom)
				if failed != wantFail[s] || !failed && errs[i] != nil {
					t.Errorf("Commit %s: %v, want failure %v", s.Rel(), errs[i], wantFail[s])
				}
				if wantFail[s] {
					if _, err := m.Stat(s.Rel()); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s exists after a failed commit: %v", s.Rel(), err)
					}
				} else {
					mustRead(t, m, s.Rel(), "page "+s.Rel())
				}
			}
			mustRead(t, m, "h/old.html", "old")
			if got := temps(t, dir); len(got) > 0 {
				t.Errorf("temp files left: %q", got)
			}
			// Everything is done: committing again fails, discarding does nothing.
			for i, err := range m.Commit(append(staged, discarded...)) {
				if !errors.Is(err, errDone) {
					t.Errorf("second Commit of file %d: %v, want errDone", i, err)
				}
			}
		})
	}
}
