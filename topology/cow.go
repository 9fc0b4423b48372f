package topology

import (
	"slices"
	"sync/atomic"
)

// cow is a slice that a Cluster and its clones share until one of them changes it: Clone
// takes a reference (share), and a writer copies the slice first (own) unless it holds
// the only reference. This keeps Clone cheap while every clone stays independent.
//
// The reference count is atomic because clones may be used from different goroutines
// without coordination: one clone's Apply may copy a slice while another clone reads it
// or takes its own copy. A writer drops its reference only after its copy is complete,
// so a holder that then sees itself alone may write in place: nobody else reads it.
type cow[T any] struct {
	s    []T
	refs *atomic.Int32
}

func newCow[T any](s []T) cow[T] {
	r := new(atomic.Int32)
	r.Store(1)
	return cow[T]{s: s, refs: r}
}

// share returns another reference to the same slice.
func (c cow[T]) share() cow[T] {
	if c.refs != nil {
		c.refs.Add(1)
	}
	return c
}

// own returns the slice for writing, copying it first when it is shared.
func (c *cow[T]) own() []T {
	if c.refs != nil && c.refs.Load() > 1 {
		s := slices.Clone(c.s)
		c.refs.Add(-1)
		*c = newCow(s)
	}
	return c.s
}

// shareAll returns a slice of new references to the same slices.
func shareAll[T any](cs []cow[T]) []cow[T] {
	out := make([]cow[T], len(cs))
	for i, c := range cs {
		out[i] = c.share()
	}
	return out
}
