package robots

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCacheStatusPolicy(t *testing.T) {
	tests := []struct {
		name  string
		a     Answer
		url   string
		allow bool
	}{
		{"200 rules", Answer{Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n")}, "http://h/x", false},
		{"200 other path", Answer{Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n")}, "http://h/y", true},
		{"404 allows all", Answer{Status: 404}, "http://h/x", true},
		{"403 allows all", Answer{Status: 403}, "http://h/x", true},
		{"401 allows all", Answer{Status: 401}, "http://h/x", true},
		{"500 disallows", Answer{Status: 500}, "http://h/x", false},
		{"503 disallows", Answer{Status: 503}, "http://h/x", false},
		{"unreachable disallows", Answer{Err: errors.New("connection refused")}, "http://h/x", false},
		{"redirect loop is unavailable", Answer{Unavailable: true}, "http://h/x", true},
		{"unreachable still allows robots.txt", Answer{Err: errors.New("refused")}, "http://h/robots.txt", true},
	}
	for _, tt := range tests {
		c := &Cache{Agent: "spider", Fetch: func(context.Context, string) Answer { return tt.a }}
		r, _, err := c.Rules(context.Background(), "http://h")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := r.Allowed(tt.url); got != tt.allow {
			t.Errorf("%s: Allowed(%s) = %v, want %v", tt.name, tt.url, got, tt.allow)
		}
	}
}

// An answer is kept for the TTL (at most 24h), an unreachable one for
// FailTTL; after that robots.txt is asked again and a change is reported.
func TestCacheTTL(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	var calls []string
	answer := Answer{Status: 200, Body: []byte("User-agent: *\nDisallow: /a\n")}
	c := &Cache{Agent: "spider", TTL: 48 * time.Hour, Now: func() time.Time { return now },
		Fetch: func(_ context.Context, u string) Answer { calls = append(calls, u); return answer }}
	get := func() (*Rules, bool) {
		r, ch, err := c.Rules(context.Background(), "http://h:8080")
		if err != nil {
			t.Fatal(err)
		}
		return r, ch
	}
	if r, ch := get(); r.Allowed("http://h:8080/a") || ch {
		t.Fatalf("first answer: /a allowed or reported changed")
	}
	now = now.Add(23 * time.Hour)
	get()
	if len(calls) != 1 || calls[0] != "http://h:8080/robots.txt" {
		t.Fatalf("calls after 23h = %q, want one fetch of http://h:8080/robots.txt", calls)
	}
	now = now.Add(2 * time.Hour) // 25h: TTL capped at 24h
	answer = Answer{Status: 200, Body: []byte("User-agent: *\nDisallow: /b\n")}
	r, ch := get()
	if len(calls) != 2 || !ch || !r.Allowed("http://h:8080/a") || r.Allowed("http://h:8080/b") {
		t.Fatalf("after 25h: calls %d changed %v: want a second fetch with the new rules, reported changed", len(calls), ch)
	}
	answer = Answer{Status: 503}
	now = now.Add(25 * time.Hour)
	if r, _ := get(); r.Allowed("http://h:8080/c") {
		t.Fatal("503: /c allowed")
	}
	now = now.Add(11 * time.Minute) // FailTTL default 10m
	answer = Answer{Status: 404}
	if r, ch := get(); !r.Allowed("http://h:8080/c") || !ch || len(calls) != 4 {
		t.Fatalf("after the failure expired: calls %d, changed %v, want 4 and a change to allow-all", len(calls), ch)
	}
}

// Concurrent callers for one host share a single fetch.
func TestCacheSingleFlight(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	c := &Cache{Agent: "spider", Fetch: func(context.Context, string) Answer {
		calls.Add(1)
		<-release
		return Answer{Status: 404}
	}}
	var wg sync.WaitGroup
	started := make(chan struct{}, 8)
	for range 8 {
		wg.Go(func() {
			started <- struct{}{}
			if _, _, err := c.Rules(context.Background(), "http://h"); err != nil {
				t.Error(err)
			}
		})
	}
	for range 8 {
		<-started
	}
	// Every caller has started; those that reach Do before release share
	// the one fetch, any later one finds the cached answer.
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d fetches of robots.txt for one host, want 1", n)
	}
}

func TestCacheCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	c := &Cache{Agent: "spider", Fetch: func(context.Context, string) Answer {
		n++
		cancel()
		return Answer{Err: context.Canceled}
	}}
	if _, _, err := c.Rules(ctx, "http://h"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	c.Fetch = func(context.Context, string) Answer { n++; return Answer{Status: 404} }
	if r, _, err := c.Rules(context.Background(), "http://h"); err != nil || !r.Allowed("http://h/x") || n != 2 {
		t.Fatalf("after a cancelled fetch: err %v, fetches %d: want a fresh fetch (nothing cached)", err, n)
	}
}
