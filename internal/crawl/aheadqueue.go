package crawl

import "container/heap"

// aheadQueue orders the jobs of lines fetched ahead that wait for a worker
// (ahead.go), the last found first (a stack), so that the chain of pages
// that makes a site deep is fetched before the pages it fans out to, with
// one exception: of the links that a page the queue handed out (or a line
// claimed the usual way) found (fetchNow), the last (a "next page" link,
// last on its page) goes before every other link in the queue. Workers
// finish pages all the time, and each pushes its links: by order of
// finding alone, the pages a worker finished just after the chain page
// would bury its next link under theirs, and the chain would wait for
// their walk. A link found by a page fetched on its turn in claim order
// (fetchLater, jobs.go) is never first: such turns come every other time
// while lines a pass claimed wait, and were what they find put first,
// each such page that finds a link (an article its image) would bury the
// chain as often as the queue's turn takes one off.
//
// It holds items, not jobs: an item whose job was taken some other way
// (its turn in claim order, or forgotten) is no longer queued, and pop
// skips it.
type aheadQueue []*aheadItem

func (q aheadQueue) Len() int { return len(q) }

func (q aheadQueue) Less(i, j int) bool {
	if q[i].first != q[j].first {
		return q[i].first
	}
	return q[i].seq > q[j].seq
}

func (q aheadQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

func (q *aheadQueue) Push(x any) { *q = append(*q, x.(*aheadItem)) }

func (q *aheadQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return it
}

// push queues the item's job.
func (q *aheadQueue) push(it *aheadItem) { heap.Push(q, it) }

// pop returns the first item, queued or not; nil if there is none.
func (q *aheadQueue) pop() *aheadItem {
	if len(*q) == 0 {
		return nil
	}
	return heap.Pop(q).(*aheadItem)
}

// pop returns the first job waiting in the queue, if any. A line a pass
// lost meanwhile is not worth a request: its job is dropped.
func (a *ahead) pop() (job, bool) {
	for it := a.queue.pop(); it != nil; it = a.queue.pop() {
		if !it.queued {
			continue // taken on its turn in claim order, or forgotten
		}
		if it.state == lost {
			a.unqueue(it)
			a.forget(it) // another spider's, or visited
			continue
		}
		return a.take(it), true
	}
	return job{}, false
}

// take returns the job of a queued item, which leaves the queue.
func (a *ahead) take(it *aheadItem) job {
	a.unqueue(it)
	return it.job
}

// unqueue notes that the item's job no longer waits.
func (a *ahead) unqueue(it *aheadItem) {
	it.queued = false
	a.queued--
	if it.state == claimedAhead {
		a.claimedWaiting--
	}
}

// forget removes the item from items, unless its line was registered anew.
func (a *ahead) forget(it *aheadItem) {
	if a.items[it.job.en.URL] == it {
		delete(a.items, it.job.en.URL)
	}
}
