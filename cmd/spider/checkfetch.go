package main

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// checkFetch validates the [fetch] settings and hosts: a value the fetcher
// would take for "the default" (0, a negative number) is refused rather
// than silently replaced.
func (s *Settings) checkFetch() error {
	f := s.Fetch
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"timeout", f.Timeout}, {"connect_timeout", f.ConnectTimeout}, {"header_timeout", f.HeaderTimeout}} {
		if d.v <= 0 {
			return usageErr{fmt.Errorf("[fetch] %s must be positive, got %v", d.key, d.v), "leave it out for its default (config.example.toml)"}
		}
	}
	switch {
	case f.MaxBody < 1:
		return usageErr{fmt.Errorf("[fetch] max_body must be at least 1 byte, got %d", f.MaxBody), "leave it out for 32 MiB (33554432)"}
	case f.MaxRedirects < 1 || f.MaxRedirects > 100:
		return usageErr{fmt.Errorf("[fetch] max_redirects must be 1 to 100, got %d", f.MaxRedirects), "leave it out for 10"}
	case f.MinRate < 0:
		return usageErr{fmt.Errorf("[fetch] min_rate must not be negative, got %d", f.MinRate), "0 turns the rate floor off"}
	case f.UserAgent != "" && (strings.TrimSpace(f.UserAgent) == "" || strings.ContainsFunc(f.UserAgent, unicode.IsControl)):
		return usageErr{fmt.Errorf("[fetch] user_agent %q is blank or holds a control character", f.UserAgent), "leave it out for spider's own, which names its version and home page"}
	}
	for _, h := range s.Hosts {
		if h == "" || strings.ContainsAny(h, "/ ") || strings.Contains(h, "://") {
			return usageErr{fmt.Errorf("hosts: %q is not a host", h), `write a host or host:port, as "example.org" or "127.0.0.1:8080", without a scheme or path`}
		}
	}
	return nil
}
