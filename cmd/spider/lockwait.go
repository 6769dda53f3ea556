package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spider-mirror/spider/internal/crawl"
	"github.com/spider-mirror/spider/list"
)

// warnLockWait returns the list's OnWait for a spider: a warning naming
// the process that keeps the list's lock, and its spider if it is one.
func warnLockWait(log *slog.Logger) func(list.LockWait) {
	return func(w list.LockWait) {
		args := []any{"waited", w.Waited.Round(time.Second), "list", w.Path}
		if w.Holder.PID != 0 {
			args = append(args, "holder_pid", w.Holder.PID, "holder_spider", holderSpider(w.Path, w.Holder.PID),
				"held_for", time.Since(w.Holder.Since).Round(time.Second))
		}
		log.Warn("waiting for the list's lock: its holder makes no progress (stopped? a hung disk?); every spider of the list waits, readers do not", args...)
	}
}

// holderSpider names the running spider whose process is pid, or "-".
func holderSpider(listPath string, pid int) string {
	sts, err := list.ReadStatuses(listPath)
	if err != nil {
		return "-"
	}
	for _, st := range sts {
		if st.Running && st.PID == pid {
			return st.Spider
		}
	}
	return "-"
}

// lockWaitErr adds the hint for a wait for the list's lock that ended
// before the lock was taken.
func lockWaitErr(err error) error {
	var lw *list.LockWaitError
	if !errors.As(err, &lw) {
		return err
	}
	hint := "another process holds the list's lock and makes no progress: if it is stopped, resume it; if it hangs, end it (its claims return to the pool)"
	if pid := lw.Holder.PID; pid != 0 {
		who := fmt.Sprintf("pid %d", pid)
		if sp := holderSpider(lw.Path, pid); sp != "-" {
			who += " (spider " + sp + ")"
		}
		hint = fmt.Sprintf("%s holds the list's lock and makes no progress: if it is stopped, resume it (kill -CONT %d); if it hangs, end it (kill %d; its claims return to the pool)",
			who, pid, pid)
	}
	return hintErr{err, hint}
}

// StalledLock is a holder of the list's lock that has kept it long enough
// to keep every spider of the list waiting (a spider stopped mid-pass).
type StalledLock struct {
	PID     int       `json:"pid"`    // 0 if the holder did not say
	Spider  string    `json:"spider"` // "-" if it is not a running spider
	Since   time.Time `json:"since"`  // zero if the holder did not say
	HeldSec float64   `json:"held_s"`
}

// stalledLock returns the holder of the list's lock if it has held it for
// at least crawl.DefaultLockWait, as long as spiders wait before warning.
func stalledLock(l *list.List) *StalledLock {
	h, held, err := l.Holder()
	if err != nil || !held || h.PID == 0 || time.Since(h.Since) < crawl.DefaultLockWait {
		return nil
	}
	return &StalledLock{PID: h.PID, Spider: holderSpider(l.Path(), h.PID), Since: h.Since.UTC(),
		HeldSec: time.Since(h.Since).Round(time.Second).Seconds()}
}
