package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/internal/scope"
	"github.com/spider-mirror/spider/internal/trap"
	"github.com/spider-mirror/spider/list"
)

// applyTraps sets the defences' keys of the config file: [scope] follow
// and the [limits] budgets per URL pattern.
func (s *Settings) applyTraps(cfg *Config) {
	for _, f := range cfg.Scope.Follow {
		s.Traps.Follow = append(s.Traps.Follow, trap.Family(f))
	}
	setPtr(&s.Scope.Limits.MaxSegments, cfg.Limits.MaxSegments)
	setPtr(&s.Traps.SimilarPages, cfg.Limits.SimilarPages)
	setPtr(&s.Traps.DateURLs, cfg.Limits.DateURLs)
	setPtr(&s.Traps.QueryShapes, cfg.Limits.QueryShapes)
}

// checkTraps validates the defences' settings.
func (s *Settings) checkTraps() error {
	for _, f := range s.Traps.Follow {
		if !trap.Valid(string(f)) {
			return usageErr{fmt.Errorf("[scope] follow: unknown family %q", f), "the families are " + familyNames()}
		}
	}
	if s.Scope.Limits.MaxSegments < 1 {
		return usageErr{fmt.Errorf("max_segments must be at least 1, got %d", s.Scope.Limits.MaxSegments), ""}
	}
	for _, b := range []struct {
		key string
		v   int
	}{{"similar_pages", s.Traps.SimilarPages}, {"date_urls", s.Traps.DateURLs}, {"query_shapes", s.Traps.QueryShapes}} {
		if b.v < 0 {
			return usageErr{fmt.Errorf("%s must not be negative, got %d", b.key, b.v), "0 turns the budget off"}
		}
	}
	return nil
}

// crawlTraps returns the defences as crawl.Config.Traps takes them: a
// budget turned off (0 here) is -1 there, where 0 means the default.
func (s *Settings) crawlTraps() trap.Config {
	c := s.Traps
	for _, v := range []*int{&c.SimilarPages, &c.DateURLs, &c.QueryShapes} {
		if *v == 0 {
			*v = -1
		}
	}
	return c
}

func familyNames() string {
	var names []string
	for _, f := range trap.Families {
		names = append(names, `"`+string(f)+`"`)
	}
	return strings.Join(names, ", ")
}

// mergeFiltered combines what the spiders' defences cut: the links by
// reason, summed, and the capped patterns, each once (the largest count).
func mergeFiltered(sts []crawl.Status) (map[string]int, []crawl.CappedPattern) {
	cut := map[string]int{}
	capped := []crawl.CappedPattern{}
	at := map[string]int{}
	for _, s := range sts {
		for k, n := range s.Filtered {
			cut[k] += n
		}
		for _, p := range s.CappedPatterns {
			if i, ok := at[p.Pattern]; ok {
				if p.URLs > capped[i].URLs {
					capped[i] = p
				}
				continue
			}
			at[p.Pattern] = len(capped)
			capped = append(capped, p)
		}
	}
	return cut, capped
}

// printFiltered writes spider status's lines on what the defences cut.
func printFiltered(w io.Writer, st *Status) {
	if len(st.Filtered) == 0 {
		return
	}
	fmt.Fprintln(w, "filtered (distinct links not followed, by reason):")
	reasons := slices.Collect(maps.Keys(st.Filtered))
	slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(st.Filtered[b]-st.Filtered[a], strings.Compare(a, b)) })
	for _, r := range reasons {
		fmt.Fprintf(w, "  %6d  %s\n", st.Filtered[r], r)
	}
	for i, p := range st.CappedPatterns {
		if i == 5 {
			fmt.Fprintf(w, "  ... (--json lists every capped pattern)\n")
			break
		}
		fmt.Fprintf(w, "  capped  %s: %s (%d URLs taken, %d of %d pages near-identical)\n", p.Pattern, p.Reason, p.URLs, p.Similar, p.Pages)
	}
}

// filteredWhy says why the defences cut the link u, as spider show prints
// it, or "": site machinery (recomputed from the config's follow), or a URL
// pattern a spider capped (from the statuses the spiders published).
func filteredWhy(u string, follow []trap.Family, sts []list.SpiderStatus) string {
	c := trap.Config{Follow: follow}
	if s := c.Strip(u); s != u {
		return fmt.Sprintf("%s: links to it are taken as %s; to keep session ids, add %q to [scope] follow", trap.Sessions.Reason(), s, trap.Sessions)
	}
	if f, sign := c.Cut(u); f != "" {
		return fmt.Sprintf("%s (%s); to follow such links, add %q to [scope] follow", f.Reason(), sign, f)
	}
	pat := trap.Pattern(u)
	path, _ := trap.Shape(u)
	for _, sp := range sts {
		var cs crawl.Status
		if json.Unmarshal(sp.Extra, &cs) != nil {
			continue
		}
		for _, p := range cs.CappedPatterns {
			if p.Pattern != pat && (p.Pattern != path || p.Reason != trap.ReasonShapes) {
				continue
			}
			return fmt.Sprintf("%s: %s, capped by spider %s after %d URLs; %s", p.Reason, p.Pattern, sp.Spider, p.URLs, capHint(p.Reason))
		}
	}
	return ""
}

// capHint names the config key that raises or turns off a cap.
func capHint(reason string) string {
	key := map[string]string{trap.ReasonSimilar: "similar_pages", trap.ReasonDated: "date_urls", trap.ReasonShapes: "query_shapes"}[reason]
	return "raise [limits] " + key + ", or set it to 0 to turn it off"
}

// showFiltered returns why the defences cut links to the URL that sh
// shows, for spider show: "" for a URL with a line in the list (it was
// taken), else filteredWhy under the config file's [scope] follow.
func showFiltered(ctx context.Context, l crawl.Store, config string, sh *Shown) (string, error) {
	if sh.Listed {
		return "", nil
	}
	cfg := &Config{}
	if config != "" {
		var err error
		if cfg, err = LoadConfig(config); err != nil {
			return "", err
		}
	}
	var follow []trap.Family
	for _, f := range cfg.Scope.Follow {
		follow = append(follow, trap.Family(f))
	}
	sts, err := l.Statuses(ctx)
	if err != nil {
		return "", listErr(err)
	}
	if why := filteredWhy(sh.URL, follow, sts); why != "" {
		return why, nil
	}
	return scopeWhy(ctx, l, cfg, sh.URL)
}

// scopeWhy says why the scope rules and limits of the config leave links
// to u out, as spider show prints it, with the key that changes it, or
// "" if a link to u would be followed: the spiders do not count such
// links (there are as many as links off the site), so show works it out.
// The hosts in scope are the start URLs', as at a spider's start
// (scopeHosts); the level limit is left out, as the link's level is not
// known.
func scopeWhy(ctx context.Context, l crawl.Store, cfg *Config, u string) (string, error) {
	s, err := configSettings("slow", cfg) // [scope] and [limits] are not per profile
	if err != nil {
		return "", err
	}
	hosts, err := scopeHosts(ctx, l, s.Starts, s.Hosts)
	if err != nil {
		return "", listErr(err)
	}
	sc := s.Scope
	sc.Hosts = hosts
	sc.AllowLoopback, sc.AllowPrivate = scope.Allowed(hosts)
	r, err := scope.New(sc)
	if err != nil {
		return "", usageErr{err, "patterns are Go regular expressions (RE2 syntax)"}
	}
	ok, why := r.Follow(u, scope.Link{URL: u, Level: 1})
	if ok {
		return "", nil
	}
	key := map[string]string{
		"out of scope":      "its host is no start URL's (spider seed adds one) nor in hosts",
		"not included":      "it matches no [scope] include pattern",
		"excluded":          "it matches a [scope] exclude pattern, or skip_cgi's",
		"url too long":      "[limits] max_url_length",
		"repeated segments": "[limits] max_repeat",
		"too many segments": "[limits] max_segments",
		"private address":   "a private or link-local address, followed only when a start URL is on one (link-local never)",
		"scheme":            "http and https only",
	}[why]
	return fmt.Sprintf("%s: %s", why, key), nil
}
