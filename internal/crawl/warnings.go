package crawl

import (
	"context"
	"log/slog"
	"sync"
)

// warnings groups the warnings (and the per-URL info lines) a pass's worth
// of fetches raise: one line per cause, with a count and the first URL,
// never one line per URL (a trap or a host off limits gives thousands of
// the same). Workers, group
// commits and archiving note; the loop flushes after every pass and once
// at the end of the run. Bounded: causes beyond maxWarnCauses are counted
// under an overflow cause.
type warnings struct {
	mu     sync.Mutex
	causes map[string]*warnCount
	order  []string // causes in the order first noted
}

// warnCount is one cause's count since the last flush, with the first URL
// and the attributes that came with it.
type warnCount struct {
	level slog.Level
	n     int
	url   string
	attrs []any
}

const (
	maxWarnCauses = 50
	overflowCause = "other warnings (too many kinds to list)"
)

// note counts one occurrence of cause for url. attrs (key-value pairs) are
// kept for the first occurrence only: give them in words that hold for
// all, and put what differs from URL to URL in the cause, coarsely
// (errorKind).
func (w *warnings) note(level slog.Level, cause, url string, attrs ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.causes == nil {
		w.causes = map[string]*warnCount{}
	}
	c := w.causes[cause]
	if c == nil {
		if len(w.order) >= maxWarnCauses {
			cause, attrs = overflowCause, []any{"first_cause", cause}
			c = w.causes[cause]
		}
		if c == nil {
			c = &warnCount{level: level, url: url, attrs: attrs}
			w.causes[cause] = c
			w.order = append(w.order, cause)
		}
	}
	c.n++
	c.level = max(c.level, level)
}

// flush logs one line per cause noted since the last flush, in the order
// first noted, and forgets them.
func (w *warnings) flush(log *slog.Logger) {
	w.mu.Lock()
	causes, order := w.causes, w.order
	w.causes, w.order = nil, nil
	w.mu.Unlock()
	for _, cause := range order {
		c := causes[cause]
		args := append([]any{"count", c.n, "first_url", c.url}, c.attrs...)
		log.Log(context.Background(), c.level, cause, args...)
	}
}
