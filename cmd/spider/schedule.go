package main

import "time"

// The profiles of one list work together: this spider's settings take
// what they need of the others' from the config file (or the built-in
// defaults), so that flags given to one process do not reach the other.

// hubLevel is how deep pages are compared between visits for the links
// they announce: as deep as the fast profile reaches (this spider's own
// limit when it has one), since announcements are what its window is for.
func hubLevel(s *Settings, cfg *Config) int {
	if s.MaxLevel >= 0 {
		return s.MaxLevel
	}
	level := profileDefaults["fast"].MaxLevel
	if p, ok := cfg.Profile["fast"]; ok && p.MaxLevel != nil {
		level = *p.MaxLevel
	}
	return level
}

// fastWindow is the fast profile's window: this spider's own if it is the
// fast one, else the config's. A page seen to change often is refreshed
// as often as that, by any profile.
func fastWindow(s *Settings, cfg *Config) time.Duration {
	if s.Profile == "fast" {
		return s.Window
	}
	w := profileDefaults["fast"].Window
	if p, ok := cfg.Profile["fast"]; ok && p.Window != nil {
		w = p.Window.Duration
	}
	return w
}

// slowWindow is the slow profile's window: this spider's own if it is the
// slow one (or a profile without a level limit), else the config's.
func slowWindow(s *Settings, cfg *Config) time.Duration {
	return slowSetting(s, cfg, s.Window, func(p Settings) time.Duration { return p.Window },
		func(p ProfileConfig) *Duration { return p.Window })
}

// slowStale is the slow profile's stale bound, found as slowWindow is;
// 0 when it is off.
func slowStale(s *Settings, cfg *Config) time.Duration {
	return slowSetting(s, cfg, s.Stale, func(p Settings) time.Duration { return p.Stale },
		func(p ProfileConfig) *Duration { return p.Stale })
}

// slowSetting is own if this spider is the slow one (or a profile without
// a level limit), else the slow profile's from the config, else its
// default.
func slowSetting(s *Settings, cfg *Config, own time.Duration, def func(Settings) time.Duration, set func(ProfileConfig) *Duration) time.Duration {
	if s.Profile == "slow" || s.MaxLevel < 0 {
		return own
	}
	if p, ok := cfg.Profile["slow"]; ok && set(p) != nil {
		return set(p).Duration
	}
	return def(profileDefaults["slow"])
}

// requisiteMean is how often a requisite with no history of its own is
// presumed to change (crawl.Config.RequisiteEvery): sites seldom edit an
// image, a style sheet or a script in place (a new version gets a new
// name, which the changed page links to and which is fetched as new), so
// once per the slow profile's stale bound, the longest a copy may go
// unchecked; never more often than the slow window. The windows still
// refresh it within each profile's longest; the presumption only puts it
// after pages when the budget cannot cover both.
func requisiteMean(s *Settings) time.Duration {
	return max(s.SlowStale, s.SlowWindow)
}

// longest is the longest revisit interval of a page seen not to change:
// the one set, else the slow window, which promises every page within it
// (the fast profile's pages too). A longest from the config that is
// shorter than a window set by flag gives way to the window; one set by
// flag is checked instead (validate).
func longest(s *Settings, flagSet bool) time.Duration {
	switch {
	case s.Longest == 0:
		return max(s.SlowWindow, s.Window)
	case s.Longest < s.Window && !flagSet:
		return s.Window
	}
	return s.Longest
}

// shortest is the shortest revisit interval, of a page seen to change
// often: the one set, else half the fast window (within the profile's
// window). A page that changes within the fast window (a hub: the home
// page, a "latest" list) is then polled twice a window, so a page it
// announces reaches the mirror within one. As for longest, a shortest
// from the config that is longer than a window set by flag gives way to
// the window; one set by flag, or a negative one, is refused instead
// (validate).
func shortest(s *Settings, cfg *Config, flagSet bool) time.Duration {
	switch {
	case s.Shortest < 0:
		return s.Shortest
	case s.Shortest == 0:
		if half := fastWindow(s, cfg) / 2; half > 0 {
			return min(half, s.Window)
		}
		return s.Window
	case s.Shortest > s.Window && !flagSet:
		return s.Window
	}
	return s.Shortest
}
