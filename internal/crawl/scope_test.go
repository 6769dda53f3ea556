package crawl

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
	"github.com/spider-mirror/spider/internal/fetch"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/list"
)

// Scope rules in the crawl: a requisite on another host is fetched (or
// not, with requisites off), a page there is not; excluded and CGI-like
// URLs are not added.
func TestScopeRules(t *testing.T) {
	for _, requisites := range []bool{true, false} {
		v := newEnv(t)
		other := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}}
		other.set("/x.png", 200, "png")
		other.set("/page", 200, "page")
		osrv := httptest.NewServer(other)
		defer osrv.Close()
		v.site.set("/", 200, `<img src="`+osrv.URL+`/x.png"> <a href="`+osrv.URL+`/page">p</a>
<a href="/skip/me">s</a> <a href="/cgi-bin/q?x=1">c</a> <a href="/keep">k</a>`)
		v.site.set("/keep", 200, "kept")
		now := v.clock
		e := New(Config{
			Spider: "slow", Profile: claim.Profile{Name: "slow", Window: time.Hour, MaxLevel: -1, Batch: 10},
			Starts: []string{v.base + "/"}, Concurrency: 2, Lease: time.Minute, UntilIdle: true,
			Now:   func() time.Time { return now },
			Scope: scope.Config{Requisites: requisites, Exclude: []string{"/skip/"}, SkipCGI: true},
		}, v.list, v.m, fetch.New(fetch.Options{UserAgent: "test", Timeout: 5 * time.Second}))
		if _, err := e.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := map[string]list.State{}
		v.list.Scan(context.Background(), func(e *list.Entry) error { got[strings.Clone(e.URL)] = e.State; return nil })
		want := map[string]list.State{v.base + "/": list.Downloaded, v.base + "/keep": list.Downloaded}
		if requisites {
			want[osrv.URL+"/x.png"] = list.Downloaded
		}
		if len(got) != len(want) {
			t.Errorf("requisites %v: lines %v, want %v", requisites, got, want)
		}
		for u, s := range want {
			if got[u] != s {
				t.Errorf("requisites %v: %s is %v, want %v", requisites, u, got[u], s)
			}
		}
	}
}
