package main

import "testing"

// With --delay 0 the default concurrency is higher and every fetch gets its
// own connection; a concurrency the user set is kept.
func TestConcurrencyWithoutDelay(t *testing.T) {
	for _, tt := range []struct {
		args        []string
		conc, conns int
	}{
		{[]string{"--profile", "slow"}, 4, 4},
		{[]string{"--profile", "slow", "--delay", "0"}, defaultConcurrencyNoDelay, defaultConcurrencyNoDelay},
		{[]string{"--profile", "slow", "--delay", "0", "--concurrency", "2"}, 2, 4},
		{[]string{"--profile", "slow", "--delay", "0", "--concurrency", "40"}, 40, 40},
		{[]string{"--profile", "slow", "--concurrency", "40"}, 40, 4},
	} {
		f := newRunFlags()
		if err := f.fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		s, err := f.resolve(&Config{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Concurrency != tt.conc || s.Fetch.MaxConnsPerHost != tt.conns {
			t.Errorf("%q: concurrency %d, connections per host %d; want %d, %d", tt.args, s.Concurrency, s.Fetch.MaxConnsPerHost, tt.conc, tt.conns)
		}
	}
}
