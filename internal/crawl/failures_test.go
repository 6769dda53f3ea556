package crawl

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/list"
)

func TestStartWatch(t *testing.T) {
	now := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	start := func(u string) list.Entry { return list.Entry{URL: u, Level: 0} }
	out := func(en list.Entry, st list.State, rec *meta.Record, held *meta.Record) *outcome {
		j := job{en: en}
		if held != nil {
			j.rec = *held
		}
		return &outcome{job: j, res: list.Result{URL: en.URL, State: st}, rec: rec}
	}
	refused := &meta.Record{Error: "connection refused"}
	type step struct {
		claim  []list.Entry
		answer *outcome
		sum    Summary
		out    bool   // other claimed lines still to be answered
		want   string // "" = no verdict
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"one dead start", []step{
			{claim: []list.Entry{start("http://a/")}},
			{answer: out(start("http://a/"), list.Error, refused, nil), want: "http://a/: connection refused"},
		}},
		{"another start still open", []step{
			{claim: []list.Entry{start("http://a/"), start("http://b/")}},
			{answer: out(start("http://a/"), list.Error, refused, nil)},
			{answer: out(start("http://b/"), list.Error, &meta.Record{Error: "404 Not Found"}, nil), want: "http://a/: connection refused"},
		}},
		{"another start fetched", []step{
			{claim: []list.Entry{start("http://a/"), start("http://b/")}},
			{answer: out(start("http://a/"), list.Error, refused, nil)},
			{answer: out(start("http://b/"), list.Downloaded, &meta.Record{}, nil), sum: Summary{Fetched: 1}},
		}},
		{"other lines still out: wait for them", []step{
			{claim: []list.Entry{start("http://a/"), {URL: "http://a/page", Level: 1, File: "a/page.html"}}},
			{answer: out(start("http://a/"), list.Error, refused, nil), out: true},
			{sum: Summary{Fetched: 1}},
		}},
		{"other lines still out, all failed", []step{
			{claim: []list.Entry{start("http://a/"), {URL: "http://a/page", Level: 1, File: "a/page.html"}}},
			{answer: out(start("http://a/"), list.Error, refused, nil), out: true},
			{sum: Summary{Failed: 2}, want: "http://a/: connection refused"},
		}},
		{"a start with a copy is no start to watch", []step{
			{claim: []list.Entry{{URL: "http://a/", Level: 0, File: "a/index.html"}}},
			{answer: out(list.Entry{URL: "http://a/", File: "a/index.html"}, list.Error, refused, nil)},
		}},
		{"handed back: claimed again later", []step{
			{claim: []list.Entry{start("http://a/")}},
			{answer: out(start("http://a/"), 0, nil, nil)},
		}},
		{"handed back, held by an earlier failure", []step{
			{claim: []list.Entry{start("http://a/")}},
			{answer: out(start("http://a/"), 0, nil, &meta.Record{Error: "connection refused", RetryAt: now.Add(time.Minute)}),
				want: "http://a/: connection refused (held back until 2026-11-25T01:01:00Z)"},
		}},
	} {
		var w startWatch
		for i, s := range tc.steps {
			for _, en := range s.claim {
				w.claimed(en)
			}
			if s.answer != nil {
				w.answered(s.answer, now)
			}
			err := w.verdict(s.sum, s.out)
			if s.want == "" && err != nil || s.want != "" && (!errors.Is(err, ErrStartFailed) || !strings.HasSuffix(err.Error(), s.want)) {
				t.Errorf("%s, step %d: verdict %v, want %q", tc.name, i, err, s.want)
			}
		}
	}
}

// The run's tally counts errors, not the lines robots.txt forbids, nor
// lines fetched, archived or handed back.
func TestTally(t *testing.T) {
	var sum Summary
	for _, o := range []*outcome{
		{res: list.Result{URL: "http://h/fine", State: list.Downloaded}},
		{res: list.Result{URL: "http://h/private", State: list.Disallowed}, rec: &meta.Record{Reason: "disallowed by robots.txt"}},
		{res: list.Result{URL: "http://h/back"}},
		{res: list.Result{URL: "http://h/gone", State: list.Archived}},
		{res: list.Result{URL: "http://h/a", State: list.Error}, rec: &meta.Record{Error: "503 Service Unavailable"}},
		{res: list.Result{URL: "http://h/b", State: list.Error}, rec: &meta.Record{Error: "404 Not Found"}},
	} {
		tally(&sum, o)
	}
	if sum.Failed != 2 || sum.FirstFailure != "http://h/a: 503 Service Unavailable" {
		t.Errorf("failed %d, first %q; want 2, the 503", sum.Failed, sum.FirstFailure)
	}
}
