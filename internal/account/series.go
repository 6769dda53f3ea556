package account

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gofrs/flock"
)

// The account over time is a file beside the list, LIST.account.jsonl:
// one Sample a line, appended by each spider at its counting passes
// (internal/crawl), oldest first. It is the only file of this package
// that does I/O. It stays bounded: an append that finds the first sample
// older than Keep and a day rewrites the file without the samples older
// than Keep (a temporary file, fsynced and renamed over it), so it is
// trimmed about once a day. Appends and rewrites hold an flock on
// LIST.account.jsonl.lock, so two spiders never lose each other's lines.
// The file is a report, not a record: a sample lost in a crash costs a
// point on a plot.

// SeriesSuffix is appended to the list's path to name the series file.
const SeriesSuffix = ".account.jsonl"

// Keep is how far back the series goes.
const Keep = 14 * 24 * time.Hour

// Sample is one spider's account of the list at one time.
type Sample struct {
	At      time.Time    `json:"at"`
	Spider  string       `json:"spider"`
	Profile string       `json:"profile"`
	Hosts   []HostSample `json:"hosts"` // the hosts with the most lines, at most MaxSampleHosts
}

// HostSample is one host's figures in a Sample.
type HostSample struct {
	Host    string  `json:"host"`
	Lines   int     `json:"lines"`
	Copies  int     `json:"copies"`
	Current float64 `json:"current"`          // estimated share current (Lines.Current)
	Budget  float64 `json:"budget_per_hour"`  // 0: not paced
	Promise float64 `json:"promise_per_hour"` // the spider's window promise, requests an hour
	// Together is what the windows of the list's profiles ask of the
	// host together, in requests an hour (Lines.Together); 0 in samples
	// taken before spiders kept it.
	Together float64 `json:"together_per_hour,omitempty"`
	// Requests are the spider's requests to the host in the SpanSec
	// seconds before At (since its previous sample, or its start).
	Requests int     `json:"requests"`
	SpanSec  float64 `json:"span_s"`
	// AnswerSec is the host's mean answer time over the spider's
	// requests to it since its start (0: none yet).
	AnswerSec float64     `json:"answer_s,omitempty"`
	Ages      []AgeSample `json:"ages"` // the first MaxSampleLevels levels with copies
}

// AgeSample is the age of one level's copies in a Sample.
type AgeSample struct {
	Level     int     `json:"level"`
	MedianSec float64 `json:"median_s"`
	MaxSec    float64 `json:"max_s"`
}

// Bounds on a sample's size.
const (
	MaxSampleHosts  = 20
	MaxSampleLevels = 8
)

// HostSamples returns the samples of the hosts of t with the most lines.
func HostSamples(hosts map[string]Lines) []HostSample {
	var out []HostSample
	for name, l := range hosts {
		h := HostSample{Host: name, Lines: l.Lines, Copies: l.Copies, Current: l.Current}
		for _, a := range l.Ages {
			if len(h.Ages) < MaxSampleLevels {
				h.Ages = append(h.Ages, AgeSample{Level: a.Level, MedianSec: a.MedianSec, MaxSec: a.MaxSec})
			}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		return out[i].Host < out[j].Host
	})
	return out[:min(len(out), MaxSampleHosts)]
}

// AppendSeries appends s to the series file at path, trimming the file
// when its first sample is older than Keep and a day.
func AppendSeries(path string, s Sample) error {
	line, err := json.Marshal(s)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	lk := flock.New(path + ".lock")
	if err := lk.Lock(); err != nil {
		return fmt.Errorf("account: lock %s: %w", path, err)
	}
	defer lk.Unlock()
	if first, err := firstSample(path); err == nil && s.At.Sub(first.At) > Keep+24*time.Hour {
		return rewrite(path, s.At.Add(-Keep), line)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("account: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("account: append to %s: %w", path, err)
	}
	return f.Close()
}

func firstSample(path string) (Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return Sample{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	var s Sample
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(line, &s)
}

// rewrite replaces the series at path by its samples from since on and
// the line last, atomically.
func rewrite(path string, since time.Time, last []byte) error {
	old, err := ReadSeries(path, since)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, s := range old {
		line, _ := json.Marshal(s)
		b.Write(line)
		b.WriteByte('\n')
	}
	b.Write(last)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("account: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails once renamed
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("account: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("account: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("account: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// ReadSeries returns the samples of the series file at path taken at or
// after since, oldest first; none if the file does not exist. A line that
// does not parse (torn by a crash) is skipped.
func ReadSeries(path string, since time.Time) ([]Sample, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("account: %w", err)
	}
	var out []Sample
	for line := range bytes.Lines(b) {
		var s Sample
		if json.Unmarshal(line, &s) != nil || s.At.Before(since) {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// AnswerTimes returns each host's answer time as the spiders saw it
// lately: for each spider, its latest sample taken at or after since;
// the mean over the spiders that timed answers there, each weighed by its
// requests in that sample (equally if none made any).
func AnswerTimes(samples []Sample, since time.Time) map[string]time.Duration {
	latest := latestOfEach(samples, since)
	type sum struct{ sec, weight float64 }
	sums := map[string]*sum{}
	for _, s := range latest {
		for _, h := range s.Hosts {
			if h.AnswerSec <= 0 {
				continue
			}
			w := float64(max(h.Requests, 1))
			if sums[h.Host] == nil {
				sums[h.Host] = &sum{}
			}
			sums[h.Host].sec += h.AnswerSec * w
			sums[h.Host].weight += w
		}
	}
	out := map[string]time.Duration{}
	for host, t := range sums {
		out[host] = time.Duration(t.sec / t.weight * float64(time.Second))
	}
	return out
}

// latestOfEach returns each spider's latest sample taken at or after
// since (samples are in the order they were taken).
func latestOfEach(samples []Sample, since time.Time) map[string]*Sample {
	latest := map[string]*Sample{}
	for i := range samples {
		s := &samples[i]
		if !s.At.Before(since) {
			latest[s.Spider] = s
		}
	}
	return latest
}

// MadePerHour returns the requests an hour the spiders made at each host
// lately: for each spider, its latest sample taken at or after since, its
// requests over its span; summed over the spiders.
func MadePerHour(samples []Sample, since time.Time) map[string]float64 {
	latest := latestOfEach(samples, since)
	out := map[string]float64{}
	for _, s := range latest {
		for _, h := range s.Hosts {
			if h.SpanSec > 0 {
				out[h.Host] += float64(h.Requests) / h.SpanSec * 3600
			}
		}
	}
	return out
}
