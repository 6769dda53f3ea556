package crawl

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/rewrite"
	"github.com/spider-mirror/spider/internal/sitetest"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// An update pass over a site where one page two levels below the home page
// changed: everything else answers 304 and keeps its copy, the changed page
// reaches the mirror, and the home page's 304 does not hide it (wget -N
// stops at an unchanged page).
func TestConditionalUpdateFindsDeepChange(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	site := sitetest.New(sitetest.Options{Now: func() time.Time { return clock }})
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	l, m, _ := openListMirror(t)
	run := func() Summary {
		now := clock
		e := New(Config{
			Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 50},
			Starts: []string{srv.URL + "/"}, Concurrency: 4, Lease: time.Minute, UntilIdle: true,
			Now: func() time.Time { return now },
		}, l, m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
		sum, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	first := run()
	pages := len(site.Paths())
	if first.Fetched != pages {
		t.Fatalf("first crawl fetched %d, site has %d pages", first.Fetched, pages)
	}
	var deep string
	for p, lv := range site.Levels() {
		if lv == 2 && strings.HasPrefix(p, "/topic/") && !strings.HasSuffix(p, "/replies") {
			deep = p
			break
		}
	}
	if deep == "" {
		t.Fatal("no topic at level 2")
	}
	before, _ := site.Body(deep)
	site.EditTopic(deep)
	served := len(site.Requests())
	clock = clock.Add(2 * time.Hour)
	second := run()

	status := map[string]int{}
	count := map[int]int{}
	for _, r := range site.Requests()[served:] {
		if r.Path == "/robots.txt" {
			continue // the robots.txt cache's own revalidation
		}
		status[r.Path] = r.Status
		count[r.Status]++
	}
	if status["/"] != http.StatusNotModified {
		t.Errorf("home answered %d, want 304", status["/"])
	}
	if status[deep] != http.StatusOK {
		t.Errorf("edited page %s answered %d, want 200", deep, status[deep])
	}
	if count[http.StatusOK]+count[http.StatusNotModified] != pages || count[http.StatusNotModified] < pages-3 {
		t.Errorf("update pass answers %v over %d pages: want all but the changed ones 304", count, pages)
	}
	if second.Unchanged != count[http.StatusNotModified] || second.Fetched != count[http.StatusOK] {
		t.Errorf("summary %+v does not match the server's answers %v", second, count)
	}
	body, _ := site.Body(deep)
	file, err := mirror.Path(srv.URL+deep, "text/html")
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rev := regexp.MustCompile(`revision \d+`)
	mark := rev.Find(body)
	if mark == nil || rev.Find(before) == nil || string(rev.Find(before)) == string(mark) {
		t.Fatalf("the edit did not change the revision shown: %q then %q", rev.Find(before), mark)
	}
	if !strings.Contains(string(got), string(mark)) {
		t.Errorf("the edit (%s) did not reach the mirror: %s", mark, file)
	}
	// Every line is fresh again: unchanged copies had their time advanced.
	l.Scan(context.Background(), func(e *list.Entry) error {
		if e.State != list.Downloaded || !e.Modified.Equal(clock) {
			t.Errorf("after the update pass: %+v", *e)
		}
		return nil
	})
}

// A 200 with the same body as last time is not written again.
func TestSameBodyIsNotRewritten(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, "<p>no links, no validators</p>")
	if sum := v.crawl(t, time.Hour); sum.Fetched != 1 {
		t.Fatalf("first crawl %+v", sum)
	}
	line := v.line(t, v.base+"/")
	fi, err := v.m.Stat(line.File)
	if err != nil {
		t.Fatal(err)
	}
	// Make the copy recognisable: if it were rewritten, its mtime would move.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := chtimes(v.mdir, line.File, old); err != nil {
		t.Fatal(err)
	}
	v.clock = v.clock.Add(2 * time.Hour)
	if sum := v.crawl(t, time.Hour); sum.Unchanged != 1 || sum.Fetched != 0 {
		t.Fatalf("second crawl %+v, want one unchanged page", sum)
	}
	fi2, err := v.m.Stat(line.File)
	if err != nil {
		t.Fatal(err)
	}
	if !fi2.ModTime().Equal(old) || fi2.Size() != fi.Size() {
		t.Errorf("an identical body was written again (mtime %v)", fi2.ModTime())
	}
	if got := v.line(t, v.base+"/"); !got.Modified.Equal(v.clock) {
		t.Errorf("the copy's time did not advance: %+v", got)
	}
}

// A redirect in scope is followed, its target becomes a line of its own,
// and the redirecting URL records where it went; a redirect off scope is
// not followed at all: the redirecting URL's copy forwards to the target
// online, and it is no error; a loop ends with an error after a bounded
// number of requests.
func TestRedirects(t *testing.T) {
	v := newEnv(t)
	other := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}}
	osrv := httptest.NewServer(other)
	t.Cleanup(osrv.Close)
	other.set("/", 200, "elsewhere")
	v.site.set("/", 200, `<a href="/old">o</a> <a href="/away">a</a> <a href="/loop1">l</a>`)
	v.site.set("/old", 301, "/new")
	v.site.set("/new", 200, "the new page")
	v.site.set("/away", 302, osrv.URL+"/")
	v.site.set("/loop1", 302, "/loop2")
	v.site.set("/loop2", 302, "/loop1")
	v.crawl(t, time.Hour)

	if got := v.line(t, v.base+"/new"); got.State != list.Downloaded {
		t.Errorf("redirect target: %+v", got)
	}
	if got := v.line(t, v.base+"/old"); got.State != list.Downloaded || got.File == "" {
		t.Errorf("redirecting URL: %+v, want a copy too so links to it work", got)
	}
	store := meta.Open(v.list.Path()+meta.Suffix, time.Second)
	recs, err := store.Get([]string{v.base + "/old", v.base + "/away", v.base + "/loop1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := recs[v.base+"/old"]; r.RedirectTo != v.base+"/new" {
		t.Errorf("/old records %+v, want redirect_to /new", r)
	}
	away := v.line(t, v.base+"/away")
	if away.State != list.Downloaded || !strings.Contains(v.file(t, away.File), `url=`+osrv.URL+`/"`) {
		t.Errorf("off-scope redirect: %+v (%q), want a copy that forwards to %s/ online", away, v.file(t, away.File), osrv.URL)
	}
	if r := recs[v.base+"/away"]; r.RedirectTo != osrv.URL+"/" || r.Forwards || r.Error != "" {
		t.Errorf("off-scope redirect records %+v", r)
	}
	if other.hits["/"] != 0 {
		t.Errorf("the off-scope target was requested %d times", other.hits["/"])
	}
	if got := v.line(t, v.base+"/loop1"); got.State != list.Error || !strings.Contains(recs[v.base+"/loop1"].Error, "loop") {
		t.Errorf("loop: %+v, %q", got, recs[v.base+"/loop1"].Error)
	}
	if n := v.site.hits["/loop1"] + v.site.hits["/loop2"]; n > 4 {
		t.Errorf("redirect loop made %d requests", n)
	}
}

// A pass that records a whole batch claims the next one: an --until-idle
// run does not stop while lines are due (it did when the batch was full).
func TestFullBatchKeepsGoing(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/a">a</a> <a href="/b">b</a>`)
	v.site.set("/a", 200, "a")
	v.site.set("/b", 200, "b")
	now := v.clock
	e := New(Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 1},
		Starts: []string{v.base + "/"}, Concurrency: 1, Lease: time.Minute, UntilIdle: true,
		Now: func() time.Time { return now },
	}, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
	sum, err := e.Run(context.Background())
	if err != nil || sum.Fetched != 3 {
		t.Errorf("batch 1: fetched %d of 3 pages (%v)", sum.Fetched, err)
	}
}

// A page that comes back exactly as it was before it was archived (same
// body, same ETag) is fetched whole and written afresh: its archived copy
// carries a banner, so neither a 304 nor an unchanged checksum may keep it.
func TestArchivedPageComesBackUnchanged(t *testing.T) {
	var gone atomic.Bool
	var conditional atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			http.Error(w, "gone", http.StatusGone)
			return
		}
		if r.Header.Get("If-None-Match") != "" {
			conditional.Add(1)
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/html")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("<html><body><p>the same page</p></body></html>"))
	}))
	t.Cleanup(srv.Close)
	v := newEnv(t)
	v.base = srv.URL
	step := func(want list.State) list.Entry {
		t.Helper()
		v.clock = v.clock.Add(2 * time.Hour)
		v.crawl(t, time.Hour)
		got := v.line(t, srv.URL+"/")
		if got.State != want {
			t.Fatalf("line %+v, want %v", got, want)
		}
		return got
	}
	first := step(list.Downloaded)
	gone.Store(true)
	step(list.Archived)
	if b, _ := v.m.ReadFile(first.File); !rewrite.HasBanner(b) {
		t.Fatalf("archived copy has no banner:\n%s", b)
	}
	gone.Store(false)
	conditional.Store(0)
	step(list.Downloaded)
	if b, _ := v.m.ReadFile(first.File); rewrite.HasBanner(b) {
		t.Errorf("the page came back but its copy keeps the banner:\n%s", b)
	}
	if n := conditional.Load(); n != 0 {
		t.Errorf("%d conditional requests for an archived copy", n)
	}
}

// The historian stores a batch at most every historyEvery, unless
// historyBatch records wait: the first records wake it at once, the next
// ones within the interval wait for more, and a full batch wakes it. With
// the workers idle, historyIdle is enough.
func TestHistorianBatches(t *testing.T) {
	h := newHistorian(nil, nil, time.Hour)
	woken := func() bool {
		select {
		case <-h.kick:
			return true
		default:
			return false
		}
	}
	rec := []meta.Record{{URL: "http://h/a"}}
	h.add(nil, true)
	if woken() {
		t.Fatal("woken with nothing queued")
	}
	h.add(rec, false)
	if !woken() {
		t.Fatal("first records: not woken")
	}
	h.queued, h.last = batch{}, time.Now() // as a flush does
	h.add(rec, true)
	if woken() {
		t.Fatal("woken again within historyEvery for one record")
	}
	h.add(make([]meta.Record, historyBatch), false)
	if !woken() {
		t.Fatal("a full batch waiting: not woken")
	}
	h.last = time.Now().Add(-historyEvery)
	h.add(nil, false)
	if !woken() {
		t.Fatal("records waiting past historyEvery: a pass without records did not wake it")
	}
	h.queued.recs, h.last = rec, time.Now().Add(-historyIdle)
	h.add(nil, false)
	if woken() {
		t.Fatal("woken past historyIdle with the workers busy")
	}
	h.add(nil, true)
	if !woken() {
		t.Fatal("records waiting past historyIdle with the workers idle: not woken")
	}
}

// A line claimed again before its last record is stored is fetched from
// that record: get reads what the historian queued, and what a flush is
// storing, over what the store holds, as the flushes will store them.
func TestHistorianReadsItsOwnRecords(t *testing.T) {
	store := &gatedHistory{History: meta.Open(filepath.Join(t.TempDir(), "l.meta"), time.Minute),
		entered: make(chan struct{}, 2), gate: make(chan struct{})}
	h := newHistorian(store, slog.New(slog.DiscardHandler), time.Hour)
	const u = "http://h/a"
	attempts := func(what string, want int) {
		t.Helper()
		recs, err := h.get([]string{u, "http://h/none"})
		if err != nil {
			t.Fatal(err)
		}
		if got := recs[u].Attempts; got != want {
			t.Errorf("%s: attempts %d, want %d", what, got, want)
		}
		if _, ok := recs["http://h/none"]; ok {
			t.Errorf("%s: a record for a URL never recorded", what)
		}
	}
	attempts("nothing recorded", 0)
	h.add([]meta.Record{{URL: u, Attempts: 1}}, false)
	attempts("queued", 1)
	flushed := make(chan struct{})
	go func() { h.flush(); close(flushed) }()
	<-store.entered
	attempts("being stored", 1)
	h.add([]meta.Record{{URL: "http://h/b"}, {URL: u, Attempts: 2}}, false)
	attempts("queued while an older record is stored", 2)
	close(store.gate)
	<-flushed
	attempts("queued over the store's", 2)
	// News of a page is read as the flush will store it: over the
	// page's record, or as a record of its own.
	changed := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	h.announce([]list.Add{{URL: u, Hint: changed}, {URL: "http://h/c", Hint: changed}}, changed)
	announced := func(what string) {
		t.Helper()
		recs, _ := h.get([]string{u, "http://h/c"})
		for _, url := range []string{u, "http://h/c"} {
			if !recs[url].Announced.Equal(changed) {
				t.Errorf("%s: %s announced %v, want %v", what, url, recs[url].Announced, changed)
			}
		}
	}
	announced("news queued")
	attempts("news queued", 2)
	h.flush()
	attempts("stored", 2)
	announced("stored")
	if recs, _ := store.History.Get([]string{u}); recs[u].Attempts != 2 || !recs[u].Announced.Equal(changed) {
		t.Errorf("store holds %+v, want 2 attempts, announced", recs[u])
	}
}

// gatedHistory is a History whose Put says it has begun, and waits for
// gate before it stores.
type gatedHistory struct {
	History
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedHistory) Put(recs []meta.Record) error {
	g.entered <- struct{}{}
	<-g.gate
	return g.History.Put(recs)
}

// The workers are idle for the historian only with nothing queued and
// nothing sent by the last pass: a refresh's passes, which wait for every
// claim to come back, are not idle while they still send claims.
func TestWorkersIdle(t *testing.T) {
	r := testRun(t)
	if !r.workersIdle() {
		t.Error("nothing queued, nothing sent: not idle")
	}
	r.sent = 10
	if r.workersIdle() {
		t.Error("idle after a pass that sent claims (a refresh's pass)")
	}
	r.sent = 0
	r.jobs.addClaimed([]job{{en: list.Entry{URL: "http://h/a"}}}, nil, nil, nil)
	if r.workersIdle() {
		t.Error("idle with a job queued")
	}
	if _, ok := r.jobs.take(); !ok {
		t.Fatal("no job")
	}
	if r.workersIdle() {
		t.Error("idle with a job taken by a worker")
	}
	r.jobs.received()
	if !r.workersIdle() {
		t.Error("not idle once the job's outcome was received")
	}
}
