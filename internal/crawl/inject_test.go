package crawl

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/hostgate"
	"github.com/spider-mirror/spider/internal/meta"
)

// closeCounting is a Gate that counts its Close calls.
type closeCounting struct {
	*hostgate.Gate
	closed int
}

func (c *closeCounting) Close() error { c.closed++; return c.Gate.Close() }

// A History and a Gate given in the Config are the ones a run uses: the
// records and the hosts' pace go there, nothing beside the list, and the
// run leaves the Gate open for its owner.
func TestInjectedHistoryAndGate(t *testing.T) {
	v := newEnv(t)
	v.site.set("/", 200, `<a href="/page">p</a>`)
	v.site.set("/page", 200, "page")
	elsewhere := t.TempDir()
	hist := meta.Open(filepath.Join(elsewhere, "h.meta"), time.Second)
	hg, err := hostgate.Open(filepath.Join(elsewhere, "hosts"), hostgate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gate := &closeCounting{Gate: hg}
	t.Cleanup(func() { hg.Close() })
	v.cfg = func(c *Config) { c.History, c.Gate, c.Delay = hist, gate, 10*time.Millisecond }
	if sum := v.crawl(t, time.Hour); sum.Fetched != 2 {
		t.Fatalf("fetched %d pages, want 2", sum.Fetched)
	}
	recs, err := hist.Get([]string{v.base + "/page"})
	if err != nil || recs[v.base+"/page"].Status != 200 {
		t.Errorf("injected history holds %+v, %v; want the page's 200", recs, err)
	}
	host := v.base[len("http://"):]
	if _, err := os.Stat(filepath.Join(elsewhere, "hosts", hostgate.FileName(host))); err != nil {
		t.Errorf("the injected gate paced no request: %v", err)
	}
	for _, beside := range []string{v.list.Path() + meta.Suffix, v.list.Path() + ".hosts.d"} {
		if _, err := os.Stat(beside); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want none beside the list", beside, err)
		}
	}
	if gate.closed != 0 {
		t.Errorf("Run closed the caller's gate %d times", gate.closed)
	}
}

// gateWithCrawlDelay returns a gate, closed when the test ends, where a
// spider published host's Crawl-delay d.
func gateWithCrawlDelay(t *testing.T, host string, d time.Duration) *hostgate.Gate {
	t.Helper()
	hg, err := hostgate.Open(t.TempDir(), hostgate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hg.Close() })
	if err := hg.SetCrawlDelay(host, d); err != nil {
		t.Fatal(err)
	}
	return hg
}

// The account reads a host's published Crawl-delay from the gate the run
// paces by, injected or not.
func TestSharedCrawlDelayFromGate(t *testing.T) {
	hg := gateWithCrawlDelay(t, "h:80", 2*time.Second)
	p := newPoliteness(Config{Gate: hg}, filepath.Join(t.TempDir(), "spider.list"))
	defer p.close()
	if d := p.sharedCrawlDelay("h:80", time.Now()); d != 2*time.Second {
		t.Errorf("Crawl-delay %v, want the injected gate's 2s", d)
	}
	if d := newPoliteness(Config{}, "").sharedCrawlDelay("h:80", time.Now()); d != 0 {
		t.Errorf("no gate: Crawl-delay %v, want 0", d)
	}
}

// A host's budget in the account takes the Crawl-delay another spider
// published through the run's gate, an injected one (a list in
// PostgreSQL) included, and nothing from beside the list.
func TestBudgetReadsTheRunsGate(t *testing.T) {
	v := newEnv(t)
	hg := gateWithCrawlDelay(t, "h:80", 3*time.Second)
	e := New(Config{Gate: hg, Delay: time.Second}, v.list, v.m, fetch.New(fetch.Options{Timeout: time.Second}))
	defer e.polite.close()
	if b := e.budget("h:80", time.Now()); b.CrawlDelaySec != 3 || b.DelaySec != 3 {
		t.Errorf("budget %+v, want the gate's Crawl-delay of 3s binding", b)
	}
	if b := e.budget("other:80", time.Now()); b.CrawlDelaySec != 0 || b.DelaySec != 1 {
		t.Errorf("budget of a host without a Crawl-delay %+v, want the spider's 1s", b)
	}
}
