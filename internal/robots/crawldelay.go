package robots

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jimsmart/grobotstxt"
)

// CrawlDelay returns the Crawl-delay robots.txt body asks of agent (a
// product token): the first valid one in a group naming agent, else the
// first in a "*" group, capped at MaxCrawlDelay; 0 if none. Values are
// seconds, fractions allowed ("1.5"); anything else is ignored. Groups are
// read as grobotstxt reads them: consecutive User-agent lines open one
// group, which ends at the next User-agent line after a rule.
func CrawlDelay(body, agent string) time.Duration {
	h := &delayHandler{agent: agent}
	grobotstxt.Parse(body, h)
	d := h.global
	if h.specificSet {
		d = h.specific
	}
	return min(d, MaxCrawlDelay)
}

// delayHandler is a grobotstxt.ParseHandler that collects Crawl-delay.
type delayHandler struct {
	agent string

	inSpecific, inGlobal bool // the current group names agent / "*"
	sawRule              bool // a non-User-agent line since the last User-agent line

	specific, global       time.Duration
	specificSet, globalSet bool
}

func (h *delayHandler) HandleRobotsStart() {}
func (h *delayHandler) HandleRobotsEnd()   {}

func (h *delayHandler) HandleUserAgent(_ int, value string) {
	if h.sawRule {
		h.inSpecific, h.inGlobal, h.sawRule = false, false, false
	}
	if value == "*" || strings.HasPrefix(value, "* ") || strings.HasPrefix(value, "*\t") {
		h.inGlobal = true
		return
	}
	if h.agent != "" && strings.EqualFold(Token(value), h.agent) {
		h.inSpecific = true
	}
}

func (h *delayHandler) HandleAllow(int, string)    { h.sawRule = true }
func (h *delayHandler) HandleDisallow(int, string) { h.sawRule = true }
func (h *delayHandler) HandleSitemap(int, string)  {}

func (h *delayHandler) HandleUnknownAction(_ int, action, value string) {
	if !strings.EqualFold(action, "crawl-delay") && !strings.EqualFold(action, "crawldelay") && !strings.EqualFold(action, "crawl_delay") {
		h.sawRule = true
		return
	}
	h.sawRule = true
	d, ok := parseSeconds(value)
	if !ok {
		return
	}
	if h.inSpecific && !h.specificSet {
		h.specific, h.specificSet = d, true
	}
	if h.inGlobal && !h.globalSet {
		h.global, h.globalSet = d, true
	}
}

// parseSeconds reads a Crawl-delay value: a non-negative decimal number of
// seconds.
func parseSeconds(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 32 || strings.Trim(s, "0123456789.") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	if f > MaxCrawlDelay.Seconds() {
		return MaxCrawlDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}
