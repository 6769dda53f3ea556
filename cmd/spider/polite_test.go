package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// arrival is one request as the server saw it come in.
type arrival struct {
	at    time.Time
	path  string
	agent string
}

// arrivals wraps h and logs when each request arrives.
type arrivals struct {
	h   http.Handler
	mu  sync.Mutex
	log []arrival
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.log = append(a.log, arrival{time.Now(), r.URL.RequestURI(), r.UserAgent()})
	a.mu.Unlock()
	a.h.ServeHTTP(w, r)
}

func (a *arrivals) snapshot() []arrival {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]arrival(nil), a.log...)
}

// TestTwoSpidersShareHostDelay runs a fast and a slow spider, real
// processes on one list, against one host with --delay 200ms, and checks
// from the server's own log that the two together never sent two requests
// less than the delay apart, and that both did fetch. On a list in
// PostgreSQL the two have state directories of their own, as on two
// machines: they share nothing but the database and the mirror.
func TestTwoSpidersShareHostDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about 8 seconds per store")
	}
	for _, store := range []string{"file", "postgres"} {
		t.Run(store, func(t *testing.T) { twoSpidersShareHostDelay(t, store) })
	}
}

func twoSpidersShareHostDelay(t *testing.T, store string) {
	const (
		delay = 200 * time.Millisecond
		// With a delay, a request starts the delay after the previous one
		// ended, which is after that one arrived: the server's log shows
		// the full delay. The tolerance is for the clock's granularity.
		tolerance = time.Millisecond
	)
	dir := t.TempDir()
	listFast := []string{"--list", filepath.Join(dir, "spider.list")}
	listSlow := listFast
	if store == "postgres" {
		conf, _ := pgConfig(t, dir, "")
		listFast = []string{"--config", pgMachine(t, conf, "machine-a")}
		listSlow = []string{"--config", pgMachine(t, conf, "machine-b")}
		t.Cleanup(func() { noSharedStateFiles(t, filepath.Join(dir, "machine-a"), filepath.Join(dir, "machine-b")) })
	}
	site := sitetest.New(sitetest.Options{Topics: 30})
	log := &arrivals{h: site.Handler()}
	srv := httptest.NewServer(log)
	t.Cleanup(srv.Close)
	common := []string{"--start", srv.URL + "/", "--delay", delay.String(), "--concurrency", "4", "--for", "6s",
		"--mirror", filepath.Join(dir, "mirror")}
	fast := startSpider(t, dir, slices.Concat([]string{"--profile", "fast", "--window", "1s"}, listFast, common)...)
	slow := startSpider(t, dir, slices.Concat([]string{"--profile", "slow", "--window", "2s"}, listSlow, common)...)
	fast.wait(20 * time.Second)
	slow.wait(20 * time.Second)

	reqs := log.snapshot()
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].at.Before(reqs[j].at) })
	by := map[string]int{}
	for _, r := range reqs {
		switch {
		case strings.HasSuffix(r.agent, "; fast)"):
			by["fast"]++
		case strings.HasSuffix(r.agent, "; slow)"):
			by["slow"]++
		}
	}
	if by["fast"] == 0 || by["slow"] == 0 {
		t.Fatalf("requests by spider %v: want both spiders to fetch; fast:\n%s\nslow:\n%s", by, fast.output(), slow.output())
	}
	if len(reqs) < 10 {
		t.Errorf("only %d requests in 6s at a delay of %v", len(reqs), delay)
	}
	minGap := time.Hour
	for i := 1; i < len(reqs); i++ {
		gap := reqs[i].at.Sub(reqs[i-1].at)
		minGap = min(minGap, gap)
		if gap < delay-tolerance {
			t.Errorf("requests %s (%s) and %s (%s) arrived %v apart, want ≥ %v",
				reqs[i-1].path, agentName(reqs[i-1].agent), reqs[i].path, agentName(reqs[i].agent), gap, delay)
		}
	}
	span := reqs[len(reqs)-1].at.Sub(reqs[0].at)
	t.Logf("%d requests (%v) over %v: %.2f requests/s, smallest gap %v (delay %v)",
		len(reqs), by, span.Round(time.Millisecond), float64(len(reqs)-1)/span.Seconds(), minGap, delay)
}

func agentName(ua string) string {
	if i := strings.LastIndex(ua, "; "); i >= 0 {
		return strings.TrimSuffix(ua[i+2:], ")")
	}
	return ua
}
