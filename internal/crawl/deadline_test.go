package crawl

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/hostile"
	"github.com/spider-mirror/spider/list"
)

// A run stopped (--for, a signal) while its workers wait for a host's
// delay ends without waiting out the stop grace: the grace is for fetches
// in flight, and a worker waiting for its turn at the host has none; its
// line goes back. Here the grace is a minute and the host's Crawl-delay
// 1 s: six workers wait their turns, one request a second; once the
// deadline has passed, no request starts.
func TestStopCutsHostDelayWaits(t *testing.T) {
	v := newEnv(t)
	var home strings.Builder
	for i := range 20 {
		fmt.Fprintf(&home, `<a href="/p/%d">%d</a> `, i, i)
		v.site.set(fmt.Sprintf("/p/%d", i), 200, "page")
	}
	v.site.set("/robots.txt", 200, "User-agent: *\nCrawl-delay: 1\n")
	v.site.set("/", 200, home.String())
	now := v.clock
	e := New(Config{
		Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
		Starts: []string{v.base + "/"}, Concurrency: 6, Delay: time.Second, Lease: time.Minute,
		StopGrace: time.Minute, Now: func() time.Time { return now },
	}, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	// The site's requests when the deadline passed; this goroutine ends
	// then, and the test waits for it.
	atDeadline := make(chan int, 1)
	go func() {
		<-ctx.Done()
		atDeadline <- v.totalHits()
	}()
	start := time.Now()
	sum, err := e.Run(ctx)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took > 30*time.Second {
		t.Errorf("the run stopped %v after it began, a deadline of 2.5 s: it waited out the stop grace (1 min)", took)
	}
	// A request sent just before the deadline may arrive just after it.
	if after := v.totalHits() - <-atDeadline; after > 1 {
		t.Errorf("%d requests after the deadline", after)
	}
	if sum.Fetched == 0 {
		t.Errorf("fetched nothing before the deadline")
	}
	v.list.Scan(context.Background(), func(en *list.Entry) error {
		if en.Spider != "" {
			t.Errorf("line still claimed: %+v", *en)
		}
		return nil
	})
}

// totalHits returns how many requests the site has had.
func (v *env) totalHits() int {
	v.site.mu.Lock()
	defer v.site.mu.Unlock()
	n := 0
	for _, h := range v.site.hits {
		n += h
	}
	return n
}

// A redirect hop waits for its host's turn like any other request: with a
// Crawl-delay, the hops of a redirect chain arrive the delay apart.
func TestRedirectHopWaitsHostDelay(t *testing.T) {
	const delay = 200 * time.Millisecond
	v := newHostile(t, hostile.Options{CrawlDelay: delay})
	v.run(t, "/chain/27")
	if e := v.line(t, "/chain/30"); e.State != list.Downloaded {
		t.Fatalf("the chain's end: %+v, want downloaded", e)
	}
	// robots.txt, the chain from /chain/27, then the redirecting URLs,
	// each a line of its own (and its copy a link to the target).
	reqs := v.site.Requests()
	if len(reqs) < 5 || reqs[4].Path != "/chain/30" {
		t.Fatalf("requests %+v, want robots.txt and the chain first", reqs)
	}
	gaps(t, reqs, delay)
}
