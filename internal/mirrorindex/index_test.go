package mirrorindex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/mirror"
)

func openMirror(t *testing.T) *mirror.Mirror {
	t.Helper()
	m, err := mirror.Open(filepath.Join(t.TempDir(), "m"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func read(t *testing.T, m *mirror.Mirror, name string) string {
	t.Helper()
	b, err := m.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPublish(t *testing.T) {
	m := openMirror(t)
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	ev := func(min int, kind, u string) Event {
		host, p, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
		file := host + "/" + p + ".html"
		if kind == Archived && strings.Contains(u, "removed") {
			file = ""
		}
		return Event{Time: t0.Add(time.Duration(min) * time.Minute), Kind: kind, URL: u, Host: host, File: file, Page: true}
	}
	if err := Publish(m, nil, t0); err != nil {
		t.Fatal(err)
	}
	if s := read(t, m, IndexPage); !strings.Contains(s, "Nothing mirrored yet") {
		t.Errorf("empty index page: %s", s)
	}
	img := func(min int, kind string) Event {
		return Event{Time: t0.Add(time.Duration(min) * time.Minute), Kind: kind, URL: "http://a.example/logo.png", Host: "a.example", File: "a.example/logo.png"}
	}
	batches := [][]Event{
		{img(0, New), ev(0, New, "http://a.example/one"), ev(1, New, "http://a.example/two"), ev(2, New, "http://b.example:8080/x?q=1")},
		{ev(60, Changed, "http://a.example/one"), ev(61, Archived, "http://a.example/two"), ev(62, New, "http://a.example/removed")},
		{ev(63, Archived, "http://a.example/removed"), ev(64, Archived, "http://b.example:8080/x?q=1"), ev(65, Restored, "http://b.example:8080/x?q=1")},
		{ev(66, Archived, "http://a.example/two"), img(66, Archived)}, // seen gone again: not counted twice
	}
	for _, b := range batches {
		if err := Publish(m, b, t0.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	var st State
	if err := json.Unmarshal([]byte(read(t, m, StateFile)), &st); err != nil {
		t.Fatal(err)
	}
	a, b := st.Hosts["a.example"], st.Hosts["b.example:8080"]
	if a == nil || b == nil || a.Pages != 3 || a.Files != 4 || a.Archived != 2 || b.Pages != 1 || b.Archived != 0 || !a.Updated.Equal(t0.Add(66*time.Minute)) {
		t.Errorf("hosts: a %+v, b %+v", a, b)
	}
	if len(st.Archived) != 2 || st.Archived[0].URL != "http://a.example/removed" || st.Archived[1].File != "a.example/two.html" {
		t.Errorf("archived: %+v", st.Archived)
	}
	if n := strings.Count(read(t, m, EventsFile), "\n"); n != 12 {
		t.Errorf("%d events logged, want 12", n)
	}

	index := read(t, m, IndexPage)
	for _, want := range []string{`<a href="a.example/one.html">a.example</a></td><td class="n">3</td><td class="n">2</td><td class="n">4</td><td>2026-11-21 13:06 UTC`,
		`<a href="./b.example:8080/x%3Fq=1.html">b.example:8080</a>`, `href="recent.html"`, `href="archive.html"`} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q:\n%s", want, index)
		}
	}
	recent := read(t, m, RecentPage)
	// Newest first: the restore at 13:05 comes before the change at 13:00.
	if i, j := strings.Index(recent, "13:05 UTC</td><td>restored"), strings.Index(recent, "13:00 UTC</td><td>changed"); i < 0 || j < 0 || i > j {
		t.Errorf("recent.html order wrong:\n%s", recent)
	}
	if !strings.Contains(recent, `<a href="./b.example:8080/x%3Fq=1.html">`) || !strings.Contains(recent, "(copy removed)") || strings.Contains(recent, "logo.png") {
		t.Errorf("recent.html links wrong:\n%s", recent)
	}
	archive := read(t, m, ArchivePage)
	if !strings.Contains(archive, `<a href="a.example/two.html">a.example/two.html</a>`) || strings.Contains(archive, "b.example") || strings.Contains(archive, "logo.png") {
		t.Errorf("archive.html:\n%s", archive)
	}

	// Without news the pages are left alone for a while, then
	// regenerated: a day later recent.html shows nothing.
	before := read(t, m, RecentPage)
	if err := Publish(m, nil, t0.Add(2*time.Hour+Refresh-time.Second)); err != nil {
		t.Fatal(err)
	}
	if read(t, m, RecentPage) != before {
		t.Error("pages regenerated without news before Refresh")
	}
	if err := Publish(m, nil, t0.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s := read(t, m, RecentPage); !strings.Contains(s, "No changes in the last 24 hours") {
		t.Errorf("recent.html after a day:\n%s", s)
	}
}

// index.html links each host's root page once it has a copy, and until
// then the host's first page, which for a mirror started below the root
// (a forum under /forum/) is all there is; a host counted before the
// index kept its front page gets HOST/index.html.
func TestIndexLinksFrontPage(t *testing.T) {
	m := openMirror(t)
	old := `{"version":1,"hosts":{"o":{"pages":5,"files":9,"archived":0,"updated":"2026-11-20T00:00:00Z"}},"archived":[]}`
	if err := m.Write(StateFile, []byte(old)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	page := func(kind, u, file string) Event {
		host, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
		return Event{Time: t0, Kind: kind, URL: u, Host: host, File: file, Page: true}
	}
	steps := []struct {
		ev   []Event
		want []string
	}{
		{[]Event{{Time: t0, Kind: New, URL: "http://h/logo.png", Host: "h", File: "h/logo.png"},
			page(New, "http://h/forum/", "h/forum/index.html"), page(New, "http://h/forum/t/1", "h/forum/t/1.html"),
			page(Changed, "http://o/a", "o/a.html")},
			[]string{`<a href="h/forum/index.html">h</a>`, `<a href="o/index.html">o</a>`}},
		{[]Event{page(New, "http://h/forum/t/2", "h/forum/t/2.html"), page(New, "http://o/b", "o/b.html")},
			[]string{`<a href="h/forum/index.html">h</a>`, `<a href="o/index.html">o</a>`}},
		{[]Event{page(New, "http://h/", "h/index.html"), page(Changed, "http://o/", "o/index.html"), page(New, "http://h/forum/t/3", "h/forum/t/3.html")},
			[]string{`<a href="h/index.html">h</a>`, `<a href="o/index.html">o</a>`}},
	}
	for i, st := range steps {
		if err := Publish(m, st.ev, t0); err != nil {
			t.Fatal(err)
		}
		index := read(t, m, IndexPage)
		for _, want := range st.want {
			if !strings.Contains(index, want) {
				t.Errorf("step %d: index.html lacks %q:\n%s", i+1, want, index)
			}
		}
	}
}

// TestPublishBounded: the log, the archive and recent.html stay bounded.
func TestPublishBounded(t *testing.T) {
	m := openMirror(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var evs []Event
	for i := range MaxEvents + 500 {
		evs = append(evs, Event{Time: now.Add(-time.Duration(i) * time.Second), Kind: Archived, Host: "h", URL: fmt.Sprintf("http://h/%d", i), File: fmt.Sprintf("h/%d.html", i), Page: true})
	}
	if err := Publish(m, evs, now); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(read(t, m, EventsFile), "\n"); n != MaxEvents {
		t.Errorf("%d events kept, want %d", n, MaxEvents)
	}
	if n := strings.Count(read(t, m, RecentPage), "<tr class=\"archived\">"); n != MaxRecent {
		t.Errorf("%d rows on recent.html, want %d", n, MaxRecent)
	}
	if n := strings.Count(read(t, m, ArchivePage), "<tr class=\"archived\">"); n != MaxArchived {
		t.Errorf("%d rows on archive.html, want %d", n, MaxArchived)
	}
}

// TestPublishConcurrent: publishers in parallel lose no event.
func TestPublishConcurrent(t *testing.T) {
	m := openMirror(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				u := fmt.Sprintf("http://h/%d-%d", w, i)
				if err := Publish(m, []Event{{Time: now, Kind: New, Host: "h", URL: u, File: "h/x", Page: true}}, now); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := strings.Count(read(t, m, EventsFile), "\n"); n != 40 {
		t.Errorf("%d events, want 40", n)
	}
	if s := read(t, m, StateFile); !strings.Contains(s, `"pages": 40`) {
		t.Errorf("state: %s", s)
	}
}

// A Publisher that reuses the log it wrote writes what Publish writes, also
// when another process published in between, and trims the log to
// MaxEvents.
func TestPublisherReuse(t *testing.T) {
	m, fresh := openMirror(t), openMirror(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var mine, other Publisher
	n := 0
	batch := func(k int) []Event {
		evs := make([]Event, k)
		for i := range evs {
			n++
			evs[i] = Event{Time: now, Kind: New, URL: fmt.Sprintf("http://h.example/%d", n), Host: "h.example", File: fmt.Sprintf("h.example/%d.html", n), Page: true}
		}
		return evs
	}
	for round, p := range []*Publisher{&mine, &mine, &other, &mine, &mine} {
		evs := batch(MaxEvents / 3)
		if err := p.Publish(m, evs, now); err != nil {
			t.Fatal(err)
		}
		if err := Publish(fresh, evs, now); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{EventsFile, StateFile, RecentPage} {
			if got, want := read(t, m, f), read(t, fresh, f); got != want {
				t.Fatalf("round %d: %s differs from Publish's (%d and %d bytes)", round, f, len(got), len(want))
			}
		}
	}
	lines := strings.Split(strings.TrimSuffix(read(t, m, EventsFile), "\n"), "\n")
	if len(lines) != MaxEvents || !strings.Contains(lines[len(lines)-1], fmt.Sprintf(`"url":"http://h.example/%d"`, n)) {
		t.Errorf("events file: %d lines, last %s; want %d, ending with event %d", len(lines), lines[len(lines)-1], MaxEvents, n)
	}
}

// ReadState gives a reader what the spiders published, or fs.ErrNotExist
// for a mirror without an index, and an error for a state it cannot read.
func TestReadState(t *testing.T) {
	m := openMirror(t)
	if _, err := ReadState(m); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no index: %v, want fs.ErrNotExist", err)
	}
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	evs := []Event{
		{Time: t0, Kind: New, URL: "http://h/a", Host: "h", File: "h/a.html", Page: true},
		{Time: t0.Add(time.Hour), Kind: Archived, URL: "http://h/a", Host: "h", File: "h/a.html", Page: true},
	}
	if err := Publish(m, evs, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	st, err := ReadState(m)
	if err != nil || len(st.Archived) != 1 || st.Archived[0].URL != "http://h/a" || !st.Archived[0].Time.Equal(t0.Add(time.Hour)) || st.Hosts["h"].Archived != 1 {
		t.Errorf("state %+v, %v; want http://h/a archived at %v", st, err, t0.Add(time.Hour))
	}
	if err := m.Write(StateFile, []byte(`{"version":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(m); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a version 2 state: %v, want an error", err)
	}
}
