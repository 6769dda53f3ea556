package sitemap

import (
	"strings"
	"time"
)

// lastmodLayouts are the W3C datetime forms (https://www.w3.org/TR/NOTE-datetime)
// a lastmod may take, most precise first, and the slips sites make most:
// an offset without its colon, no offset at all (taken as UTC), a space
// for the "T".
var lastmodLayouts = []string{
	time.RFC3339Nano, // 2006-01-02T15:04:05.999999999Z07:00, seconds and fractions optional when parsing
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01",
	"2006",
}

// Lastmod parses a lastmod value. A date without a time is its day's
// start in UTC, a month or a year the start of it: a lastmod is a hint
// that the page changed since, and the earliest reading is the one that
// never claims a change that did not happen.
func Lastmod(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 4 || len(s) > 40 {
		return time.Time{}, false
	}
	for _, l := range lastmodLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1990 {
				return time.Time{}, false // before the web: a placeholder, not a date
			}
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
