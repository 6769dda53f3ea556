package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

var (
	versionRE = regexp.MustCompile(`<meta name="x-version" content="(\d+)">`)
	latestRE  = regexp.MustCompile(`(?s)<section id="latest">.*?href="([^"]+)"`)
)

func serve(t *testing.T, site *sitetest.Site, path string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	site.Handler().ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w.Code, w.Body.String()
}

func readTruth(t *testing.T, name string) truth {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("truth file: %v", err)
	}
	return tr
}

// TestFreshMixTruth runs the fresh mix through two rotations and checks
// after each change that the truth file agrees with what the site serves
// and that the change is of the kind the rotation promises.
func TestFreshMixTruth(t *testing.T) {
	for _, stable := range []bool{false, true} {
		t.Run(map[bool]string{false: "shifting pages", true: "stable pages"}[stable], func(t *testing.T) {
			freshMixTruth(t, sitetest.New(sitetest.Options{Shape: sitetest.Articles, Topics: 80, Versioned: true, StablePages: stable}))
		})
	}
}

func freshMixTruth(t *testing.T, site *sitetest.Site) {
	c := newFreshChurner(site, 7)
	name := filepath.Join(t.TempDir(), "truth.json")
	var tr truth
	tr.record(site, "", time.Now())
	prev := tr.Versions
	kinds := []string{"added", "announced", "edited", "deleted"}
	for i := range 8 {
		desc := c.step()
		tr.record(site, desc, time.Now())
		if err := tr.write(name); err != nil {
			t.Fatal(err)
		}
		got := readTruth(t, name)
		if got.Applied != i+1 || len(got.Changes) != i+1 {
			t.Fatalf("change %d: truth lists %d changes (%d applied)", i, len(got.Changes), got.Applied)
		}
		ch := got.Changes[i]
		if ch.Kind != kinds[i%4] || desc != ch.Kind+" "+ch.Path {
			t.Errorf("change %d: %q recorded as %+v, want kind %s", i, desc, ch, kinds[i%4])
		}
		if !reflect.DeepEqual(got.Versions, site.Versions()) {
			t.Fatalf("change %d: truth file's versions differ from the site's", i)
		}
		for p, v := range got.Versions {
			code, body := serve(t, site, p)
			if code != 200 {
				t.Fatalf("change %d: %s in the truth answers %d", i, p, code)
			}
			if slices.Contains(got.Unmarked, p) {
				if v != 1 || strings.HasPrefix(body, "<!DOCTYPE html>") {
					t.Errorf("change %d: unmarked %s at version %d; only never edited requisites go unmarked", i, p, v)
				}
				continue
			}
			m := versionRE.FindStringSubmatch(body)
			if m == nil || m[1] != strconv.Itoa(v) {
				t.Errorf("change %d: %s carries %v, truth says version %d", i, p, m, v)
			}
		}
		_, home := serve(t, site, "/")
		top := latestRE.FindStringSubmatch(home)
		switch ch.Kind {
		case "added", "announced":
			if top == nil || top[1] != ch.Path {
				t.Errorf("change %d: %s %s, but the latest list starts with %v", i, ch.Kind, ch.Path, top)
			}
			if want := prev[ch.Path] + 1; ch.Version != want {
				t.Errorf("change %d: %s %s at version %d, want %d", i, ch.Kind, ch.Path, ch.Version, want)
			}
		case "edited":
			if l := site.Levels()[ch.Path]; l < 3 || got.Versions["/"] != prev["/"] {
				t.Errorf("change %d: silent edit of %s at level %d, home version %d → %d", i, ch.Path, l, prev["/"], got.Versions["/"])
			}
			if ch.Version != prev[ch.Path]+1 {
				t.Errorf("change %d: edit left %s at version %d", i, ch.Path, ch.Version)
			}
		case "deleted":
			img := "/media/" + strings.TrimPrefix(strings.SplitN(ch.Path, "-", 2)[0], "/article/") + ".png"
			for _, p := range []string{ch.Path, img} {
				if code, _ := serve(t, site, p); code != 404 || got.Versions[p] != 0 {
					t.Errorf("change %d: deleted %s answers %d, truth version %d", i, p, code, got.Versions[p])
				}
			}
			if strings.Contains(home, ch.Path) {
				t.Errorf("change %d: home still links deleted %s", i, ch.Path)
			}
		}
		prev = got.Versions
	}
}

// TestFreshMixSeeded checks that a seed fixes the sequence of changes and
// that another seed picks other topics.
func TestFreshMixSeeded(t *testing.T) {
	seq := func(seed uint64) []string {
		c := newFreshChurner(sitetest.New(sitetest.Options{Shape: sitetest.Articles, Topics: 100}), seed)
		var out []string
		for range 12 {
			out = append(out, c.step())
		}
		return out
	}
	a, b, other := seq(3), seq(3), seq(4)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seed 3 twice:\n%q\n%q", a, b)
	}
	if reflect.DeepEqual(a, other) {
		t.Errorf("seeds 3 and 4 made the same changes: %q", a)
	}
}

// TestRunWritesTruthAndRequestLog runs the command with the fresh mix and
// checks the truth file follows the changes and the request log has the
// requests, flushed by the time run returns.
func TestRunWritesTruthAndRequestLog(t *testing.T) {
	dir := t.TempDir()
	ready, truthFile, reqLog := filepath.Join(dir, "ready"), filepath.Join(dir, "truth.json"), filepath.Join(dir, "req.log")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-shape", "articles", "-topics", "40", "-churn", "5ms", "-churn-mix", "fresh",
			"-truth-file", truthFile, "-request-log", reqLog, "-ready-file", ready}, io.Discard, io.Discard)
	}()
	var base string
	waitFor(t, "ready file", func() bool {
		b, err := os.ReadFile(ready)
		base = strings.TrimSpace(string(b))
		return err == nil
	})
	waitFor(t, "four changes in the truth file", func() bool {
		b, err := os.ReadFile(truthFile)
		var tr truth
		return err == nil && json.Unmarshal(b, &tr) == nil && tr.Applied >= 4
	})
	resp, err := http.Get(base + "about")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !versionRE.Match(body) {
		t.Errorf("/about carries no version marker with -truth-file:\n%s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(reqLog)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\d+\.\d{6} 200 GET /about$`).Match(b) {
		t.Errorf("request log lacks the GET /about:\n%s", b)
	}
	if tr := readTruth(t, truthFile); len(tr.Changes) < 4 || tr.Changes[1].Kind != "announced" {
		t.Errorf("truth changes: %+v", tr.Changes)
	}
}
