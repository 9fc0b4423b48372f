package forecast

import (
	"container/heap"
	"time"

	"github.com/poolgate/poolgate/admission"
)

// end is a running workload's estimated end: the instant, the workload, and the run it
// ends. An entry whose run is no longer the workload's current one (a plan evicted
// it) is stale and skipped when it comes up.
type end struct {
	at  time.Time
	id  admission.WorkloadID
	run int
}

// ends is a min-heap of ends by instant, then ID, so that the releases of one instant
// come up together and in a fixed order.
type ends []end

func (h ends) Len() int { return len(h) }
func (h ends) Less(i, j int) bool {
	if c := h[i].at.Compare(h[j].at); c != 0 {
		return c < 0
	}
	return h[i].id < h[j].id
}
func (h ends) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *ends) Push(x any)   { *h = append(*h, x.(end)) }
func (h *ends) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// push schedules e.
func (h *ends) push(e end) { heap.Push(h, e) }

// pop takes the earliest end off.
func (h *ends) pop() end { return heap.Pop(h).(end) }
