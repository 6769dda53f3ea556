package list

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var errInjected = errors.New("injected I/O error")

// faultBase is a list in which spider "a" holds one claim.
const faultBase = Header + "\n" +
	"-                    a            0 claimed    -                    -                    http://h/\n" +
	"h/x.html             -            1 downloaded 2026-11-20T10:00:00Z -                    http://h/x\n" +
	"-                    -            1 found      -                    -                    http://h/y\n" +
	"- - 1 found - http://h/squeezed\n"

// faultPass records the claim, appends two links and claims two lines.
func faultPass() *Cycle {
	return &Cycle{Spider: "a", Now: t0,
		Results: []Result{{URL: "http://h/", State: Downloaded, File: "h/index.html", Modified: t0}},
		Add:     []Add{{URL: "http://h/new1", Level: 1}, {URL: "http://h/x", Level: 1}, {URL: "http://h/new2", Level: 2}},
		Pick:    allPicker{2}}
}

func listAt(t *testing.T, content string) *List {
	t.Helper()
	path := filepath.Join(t.TempDir(), "urls.list")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFaultsLeaveOldOrNewState fails the n-th write, fsync, truncate or
// rename of a pass, for every n, and checks that the list is then exactly
// the state before the pass or the state after it, never anything else.
func TestFaultsLeaveOldOrNewState(t *testing.T) {
	for _, tc := range []struct {
		name, base string
	}{
		{"in place", strings.Replace(faultBase, "- - 1 found - http://h/squeezed\n", "", 1)},
		{"rewrite", faultBase}, // claiming the squeezed line rewrites the file
	} {
		t.Run(tc.name, func(t *testing.T) {
			pre := entries(t, listAt(t, tc.base))
			ref := listAt(t, tc.base)
			run(t, ref, faultPass())
			post := entries(t, ref)
			if reflect.DeepEqual(pre, post) {
				t.Fatal("the pass changes nothing")
			}
			for n := 1; n < 50; n++ {
				l := listAt(t, tc.base)
				ops := 0
				var failed string
				fault = func(op string) error {
					if ops++; ops == n {
						failed = op
						return errInjected
					}
					return nil
				}
				err := l.Run(context.Background(), faultPass())
				fault = nil
				got := entries(t, l) // a reader replays a pending journal
				switch {
				case err == nil:
					if !reflect.DeepEqual(got, post) {
						t.Errorf("no fault: state differs from the reference")
					}
					if n == 1 {
						t.Fatal("the pass made no fallible operation")
					}
					return
				case !errors.Is(err, errInjected):
					t.Errorf("fault at %s: error %v does not say what failed", failed, err)
				case reflect.DeepEqual(got, pre):
					t.Logf("fault %d at %s: previous state", n, failed)
				case reflect.DeepEqual(got, post):
					t.Logf("fault %d at %s: next state", n, failed)
				default:
					t.Errorf("fault %d at %s: list is neither the previous nor the next state:\n%+v", n, failed, got)
				}
				if leftovers, _ := filepath.Glob(l.Path() + ".tmp-*"); len(leftovers) > 0 {
					t.Errorf("fault %d at %s: temporary files left: %v", n, failed, leftovers)
				}
			}
			t.Fatal("more than 50 operations in one pass")
		})
	}
}

// TestTornWriteIsRepaired simulates a power cut during the in-place writes:
// each record of the pass reached the disk only half, tearing lines. The
// journal restores the whole pass.
func TestTornWriteIsRepaired(t *testing.T) {
	base := strings.Replace(faultBase, "- - 1 found - http://h/squeezed\n", "", 1)
	ref := listAt(t, base)
	run(t, ref, faultPass())
	post := entries(t, ref)

	l := listAt(t, base)
	tornPhase(t, l)
	// A reader reads the list as the journal completes it, without
	// writing; the next pass replays the journal into the file.
	if got := entries(t, l); !reflect.DeepEqual(got, post) {
		t.Errorf("read before replay:\n%+v\nwant\n%+v", got, post)
	}
	if err := l.Run(context.Background(), &Cycle{Spider: "a"}); err != nil { // a holds the claims
		t.Fatal(err)
	}
	if fi, _ := os.Stat(journalPath(l.Path())); fi.Size() != 0 {
		t.Errorf("journal not emptied after replay")
	}
	if got := entries(t, l); !reflect.DeepEqual(got, post) {
		t.Errorf("after replay:\n%+v\nwant\n%+v", got, post)
	}
}

// A torn journal (the pass died writing it) is ignored: the list is as
// before the pass.
func TestTornJournalIgnored(t *testing.T) {
	base := strings.Replace(faultBase, "- - 1 found - http://h/squeezed\n", "", 1)
	l := listAt(t, base)
	pre := entries(t, l)
	b := encodeJournal(int64(len(base)), []journalRec{{off: 0, data: []byte("garbage")}})
	for cut := 0; cut < len(b); cut += 7 {
		os.WriteFile(journalPath(l.Path()), b[:cut], 0o644)
		if got := entries(t, l); !reflect.DeepEqual(got, pre) {
			t.Fatalf("journal cut at %d changed the list", cut)
		}
	}
}

func TestJournalRoundTrip(t *testing.T) {
	recs := []journalRec{{off: 10, data: []byte("abc")}, {off: 0, data: nil}, {off: 1 << 40, data: []byte("x\n")}}
	end, got, err := decodeJournal(encodeJournal(99, recs))
	if err != nil || end != 99 || len(got) != 3 || string(got[2].data) != "x\n" || got[2].off != 1<<40 {
		t.Errorf("round trip: %d %+v %v", end, got, err)
	}
}

func TestCompactRestoresPadding(t *testing.T) {
	l := listAt(t, faultBase)
	sl, err := LockSpider(l.Path(), "a") // a live claimant keeps its claim
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Unlock()
	before := entries(t, l)
	st, err := l.Compact(context.Background())
	if err != nil || !st.Rewrote {
		t.Fatalf("Compact: %+v, %v", st, err)
	}
	if after := entries(t, l); !reflect.DeepEqual(after, before) {
		t.Errorf("Compact changed the entries:\n%+v\nwant\n%+v", after, before)
	}
	data, _ := os.ReadFile(l.Path())
	if strings.Contains(string(data), "- - 1 found - ") {
		t.Errorf("squeezed line still squeezed:\n%s", data)
	}
}
