package account

import (
	"time"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/urlkey"
)

// History is what the fetch history (LIST.meta) of one host's URLs adds
// up to: requests spent per change caught, and how soon announced pages
// reached the mirror.
type History struct {
	Records int `json:"records"` // records read
	// Sampled says the records are one in Every of the store's: reading
	// every record of a large history costs more than a status may.
	Sampled bool `json:"sampled"`
	Every   int  `json:"every"`
	// Requests are every request made for the URLs (first fetches and
	// failures included), Checks the revisits that could tell whether the
	// page changed, Changes those that found it changed.
	Requests int `json:"requests"`
	Checks   int `json:"checks"`
	Changes  int `json:"changes"`
	// PerChange is Requests ÷ Changes; 0 with no change caught.
	PerChange float64 `json:"requests_per_change"`
	// Of the pages a hub or a sitemap announced: Measured were visited
	// since (the last announcement each), InWindow of them within the
	// fast window; Late are announced and still not visited after it,
	// Waiting announced less than a window ago.
	Measured int `json:"announced_measured"`
	InWindow int `json:"announced_in_window"`
	Late     int `json:"announced_late"`
	Waiting  int `json:"announced_waiting"`
}

// Histories tallies history records per host. The zero value is not
// usable; see NewHistories.
type Histories struct {
	window time.Duration
	now    time.Time
	every  int
	hosts  map[string]*History
}

// NewHistories returns a tally of records read one in every, as of now,
// judging announcements against the fast window.
func NewHistories(window time.Duration, now time.Time, every int) *Histories {
	return &Histories{window: window, now: now, every: max(every, 1), hosts: map[string]*History{}}
}

// Add counts one record.
func (hs *Histories) Add(r *meta.Record) {
	name := urlkey.Host(r.URL)
	h := hs.hosts[name]
	if h == nil {
		h = &History{Every: hs.every, Sampled: hs.every > 1}
		hs.hosts[name] = h
	}
	h.Records++
	h.Requests += r.Attempts
	h.Checks += r.Checks
	h.Changes += r.Changes
	if r.Lag > 0 {
		h.Measured++
		if r.Lag <= hs.window {
			h.InWindow++
		}
	}
	if !r.Announced.IsZero() {
		if hs.now.Sub(r.Announced) > hs.window {
			h.Late++
		} else {
			h.Waiting++
		}
	}
}

// Hosts returns the tally per host.
func (hs *Histories) Hosts() map[string]History {
	out := make(map[string]History, len(hs.hosts))
	for name, h := range hs.hosts {
		if h.Changes > 0 {
			h.PerChange = float64(h.Requests) / float64(h.Changes)
		}
		out[name] = *h
	}
	return out
}
