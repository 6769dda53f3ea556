package claim

import (
	"crypto/md5"
	"strconv"
	"time"

	"github.com/spider-mirror/spider/list"
)

// drawn reports whether the line's wait takes a drawn point
// (UnpacedWait): a page's copy, neither hinted nor held back by a backlog,
// for a spider with no delay.
func (b *bounds) drawn(e *list.Entry) bool {
	return b.unpaced && !b.backlog && !otherFile(e) && !e.Hinted()
}

// UnpacedWait is how long after its copy, taken at modified, the page at
// url falls due for a spider with no delay (Picker.Unpaced) at the
// latest: a point between half of shortest and shortest, drawn from url
// and modified, so each page and copy has its own. A first mirror with no
// delay fetches a whole site in moments; were every page due again at
// shortest exactly, every later sweep would come as the same burst, and
// the pages that list a page would be fetched in the same instant as it,
// so that its deletion (its 404, or a listing that dropped it) would hint
// them no sooner than their own turn. Drawn points spread the sweeps
// within each shortest, which still bounds a copy's age.
//
// The draw is the first 16 bits of the MD5 of the URL, a space and the
// copy's time in Unix seconds, over 2^16; the wait is in whole
// microseconds. internal/pglist computes the same in SQL.
func UnpacedWait(url string, modified time.Time, shortest time.Duration) time.Duration {
	var buf [256]byte
	sum := md5.Sum(strconv.AppendInt(append(append(buf[:0], url...), ' '), modified.Unix(), 10))
	x := int64(sum[0])<<8 | int64(sum[1])
	least := leastDrawn(shortest)
	rest := shortest.Microseconds() - least.Microseconds()
	return least + time.Duration(x*rest/(1<<16))*time.Microsecond
}

// soonest is the soonest a line whose wait takes a draw (drawn) may fall
// due under p, at least: its copy's time plus the least the draw can be
// (or its early wait, if less), or its stale bound if that comes first.
// It spares the draw where Next already knows a sooner line. It is the
// zero time for every other line.
func (b *bounds) soonest(p Profile, e *list.Entry) time.Time {
	if !b.drawn(e) || e.Modified.IsZero() {
		return time.Time{}
	}
	at := e.Modified.Add(min(b.earlyWait(e), leastDrawn(b.shortest)))
	if s := since(e).Add(p.Stale); p.Stale > 0 && s.Before(at) {
		at = s
	}
	return at
}

// leastDrawn is the least UnpacedWait can be: half of shortest, in
// whole microseconds.
func leastDrawn(shortest time.Duration) time.Duration {
	return time.Duration(shortest.Microseconds()/2) * time.Microsecond
}
