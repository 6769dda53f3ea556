package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

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
