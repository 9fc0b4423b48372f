package topology

import (
	"cmp"
	"slices"
)

// fewestSteps bounds the branch-and-bound of fewest; past it the best set found so far
// is used. It keeps a spread choice cheap on very wide domains, where the first sets
// tried are nearly always already optimal.
const fewestSteps = 4096

// fewest picks the fewest entries of room whose sum reaches want and, among sets of that
// size, the one whose sum exceeds want the least (capacities 10, 9, 9 with want 18 → the
// two 9s). Ties go to the set found first, visiting larger rooms first and equal rooms in
// index order. It returns the chosen indices, largest room first, and false when even all
// the entries together fall short. It works in b, which a search reuses from call to call:
// the result lives in b until its next use.
func (b *fewestBuf) fewest(room []int64, want int64) ([]int, bool) {
	if want <= 0 {
		return nil, true
	}
	// One entry that holds everything is the fewest possible; the tightest such entry
	// is the answer, found in one pass without sorting the whole domain.
	if i := tightest(room, want); i >= 0 {
		b.best = append(b.best[:0], i)
		return b.best, true
	}
	// Most room first, equal rooms in index order: one key per entry, so that the
	// sort compares integers rather than calling back.
	b.keys = b.keys[:0]
	for i, r := range room {
		if r > 0 {
			b.keys = append(b.keys, roomKey{-r, i})
		}
	}
	slices.SortFunc(b.keys, func(x, y roomKey) int { return cmp.Or(cmp.Compare(x.neg, y.neg), cmp.Compare(x.i, y.i)) })
	b.order = b.order[:0]
	for _, k := range b.keys {
		b.order = append(b.order, k.i)
	}
	l := &b.list
	*l = roomList{idx: b.order, room: l.room[:0], prefix: append(l.prefix[:0], 0)}
	for _, i := range b.order {
		l.room = append(l.room, room[i])
		l.prefix = append(l.prefix, l.prefix[len(l.prefix)-1]+room[i])
	}
	return b.search(l, want)
}

// roomKey sorts an entry of fewest: by room, largest first, then by index.
type roomKey struct {
	neg int64 // the room, negated
	i   int
}

// fewestBuf holds what fewest works in, reused from call to call by one search.
type fewestBuf struct {
	keys      []roomKey
	order     []int
	list      roomList
	cur, best []int
	want      int64
	bestSum   int64
	bound     int64
	steps     int
	r         *roomList
}

// roomList is the entries of a fewest choice with a positive room, largest room first and
// equal rooms in index order. It may be produced lazily: more appends at least one entry,
// or reports that there are no more; least is then a lower bound on every room (0 when
// unknown).
type roomList struct {
	idx   []int
	room  []int64
	more  func(*roomList) bool
	least int64

	prefix []int64 // prefix[p] = Σ room[:p], extended as entries are produced
}

// has reports whether the list has an entry at position p, producing entries up to it.
func (r *roomList) has(p int) bool {
	for p >= len(r.room) {
		if r.more == nil || !r.more(r) {
			r.more = nil
			return false
		}
	}
	return true
}

// sum returns Σ room[from:to] of produced entries.
func (r *roomList) sum(from, to int) int64 {
	if len(r.prefix) == 0 {
		r.prefix = append(r.prefix, 0)
	}
	for p := len(r.prefix) - 1; p < len(r.room); p++ {
		r.prefix = append(r.prefix, r.prefix[p]+r.room[p])
	}
	return r.prefix[to] - r.prefix[from]
}

// floor returns a lower bound on the sum of any m entries: the m smallest rooms when the
// whole list is known, m times the least room otherwise.
func (r *roomList) floor(m int) int64 {
	if r.more == nil {
		return r.sum(len(r.room)-m, len(r.room))
	}
	return int64(m) * r.least
}

// search is fewest once no single entry holds want, on the sorted entries: the smallest
// number m of entries that reach want, then a branch-and-bound over sets of m entries for
// the least sum at or above it. It reads the list only as far as it needs.
//
// The search stops at fewestSteps, or as soon as no set can beat the best found: when its
// sum is want, or the floor of every m-set. Stopping there changes nothing, since only a
// strictly smaller sum replaces the best, and it keeps lists of equal rooms (a rack of
// identical nodes) from running to the step limit for nothing.
func (b *fewestBuf) search(r *roomList, want int64) ([]int, bool) {
	m := 0
	var sum int64
	for sum < want && r.has(m) {
		sum += r.room[m]
		m++
	}
	if sum < want {
		return nil, false
	}
	b.r, b.want, b.steps = r, want, 0
	b.best = append(b.best[:0], r.idx[:m]...)
	b.bestSum = sum
	b.bound = max(want, r.floor(m))
	b.cur = b.cur[:0]
	b.dfs(0, 0, m)
	return b.best, true
}

// done reports whether the branch-and-bound should stop.
func (b *fewestBuf) done() bool { return b.bestSum <= b.bound || b.steps >= fewestSteps }

// dfs extends the positions in b.cur from position from on, m entries in all.
func (b *fewestBuf) dfs(from int, sum int64, m int) {
	if b.done() {
		return
	}
	b.steps++
	r := b.r
	if len(b.cur) == m {
		if sum >= b.want && sum < b.bestSum {
			b.best = b.best[:0]
			for _, p := range b.cur {
				b.best = append(b.best, r.idx[p])
			}
			b.bestSum = sum
		}
		return
	}
	left := m - len(b.cur)
	for i := from; r.has(i + left - 1); i++ {
		// The largest rooms left are the next ones: if even they fall short, so does
		// every later choice.
		if sum+r.sum(i, i+left) < b.want {
			return
		}
		b.cur = append(b.cur, i)
		b.dfs(i+1, sum+r.room[i], m)
		b.cur = b.cur[:len(b.cur)-1]
		if b.done() {
			return
		}
	}
}

// tightest returns the index of the smallest entry of room that reaches want, the lowest
// index among equals, or -1 when none does.
func tightest(room []int64, want int64) int {
	best := -1
	for i, r := range room {
		if r >= want && (best < 0 || r < room[best]) {
			best = i
		}
	}
	return best
}
