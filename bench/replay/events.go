package replay

import (
	"container/heap"
	"time"
)

// completion is the end of one run of a job: due at its admission plus its lifetime.
// run numbers the job's admissions, so that the completion of a run that was cut short
// by preemption is recognised as stale and dropped.
type completion struct {
	at  time.Duration
	job int
	run int
}

// completions is a min-heap of completions by time, then job, so that equal times
// release in a fixed order.
type completions []completion

func (h completions) Len() int { return len(h) }
func (h completions) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].job < h[j].job
}
func (h completions) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *completions) Push(x any)   { *h = append(*h, x.(completion)) }
func (h *completions) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// schedule adds a completion.
func (h *completions) schedule(c completion) { heap.Push(h, c) }

// peek returns the earliest completion that is still live by live's judgement,
// dropping stale ones on the way.
func (h *completions) peek(live func(completion) bool) (completion, bool) {
	for h.Len() > 0 {
		if c := (*h)[0]; live(c) {
			return c, true
		}
		heap.Pop(h)
	}
	return completion{}, false
}

// pop removes the earliest completion.
func (h *completions) pop() completion { return heap.Pop(h).(completion) }
