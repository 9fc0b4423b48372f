package topology

import (
	"math"
	"slices"
)

// listAt is the size above which the nodes of a domain are listed through the shape's
// node index instead of one by one: a launcher that no constraint covers may go on any
// node of the cluster, and listing them all would cost more than the rest of the search.
const listAt = 256

// nodeList is the nodes a reservation may use, in the order distribute fills them, each
// with the pods of the kind it can take: first the fewest nodes that hold the pods with
// least left over (best fit), then the others in node order. A list over a large domain is
// produced lazily, from the node index, so that a search that stops at the best fit never
// looks at the rest. total is Σ fit over the whole list, produced or not.
type nodeList struct {
	nodes []int32
	fit   []int64
	total int64
	more  func(*nodeList) bool // appends at least one entry, or reports there are no more
}

// has reports whether the list has an entry at position j, producing entries up to it.
func (l *nodeList) has(j int) bool {
	for j >= len(l.nodes) {
		if l.more == nil || !l.more(l) {
			l.more = nil
			return false
		}
	}
	return true
}

func (l *nodeList) add(node int32, fit int64) {
	l.nodes = append(l.nodes, node)
	l.fit = append(l.fit, fit)
}

// nodesFor returns the nodes of the given domains of level l that can take a pod of kind
// k, in the order to fill them with n pods.
func (s *searcher) nodesFor(k int32, l int, ids []int32, n int64) *nodeList {
	if s.mode != scanned {
		if s.cn.sh[k] == nil {
			return &nodeList{} // the shape asks for a resource no node has
		}
		// Region ids are sorted and distinct: consecutive ones are one range of nodes.
		if len(ids) > 0 && int(ids[len(ids)-1]-ids[0])+1 == len(ids) {
			lv := &s.c.lv[l]
			lo, hi := lv.start[ids[0]], lv.start[ids[len(ids)-1]+1]
			if int(hi-lo) > s.listAt {
				return s.indexNodes(k, l, ids, lo, hi, n)
			}
		}
	}
	return s.scanNodes(k, l, ids, n)
}

// scanNodes lists the nodes one by one, as every search did before the node index.
func (s *searcher) scanNodes(k int32, l int, ids []int32, n int64) *nodeList {
	lv := &s.c.lv[l]
	nodes, fit := s.nodes[:0], s.fit[:0]
	var total int64
	for _, d := range ids {
		for i := lv.start[d]; i < lv.start[d+1]; i++ {
			if f := s.liveFit(i, k); f > 0 {
				nodes = append(nodes, i)
				fit = append(fit, f)
				total += f
			}
		}
	}
	s.nodes, s.fit = nodes, fit
	out := &nodeList{nodes: s.carveNodes(len(nodes)), fit: s.carveFit(len(nodes)), total: total}
	pick, ok := s.fb.fewest(fit, n)
	if !ok {
		pick = nil
	}
	first := slices.Grow(s.first[:0], len(nodes))[:len(nodes)]
	clear(first)
	s.first = first
	for _, j := range pick {
		first[j] = true
		out.add(nodes[j], fit[j])
	}
	for j := range nodes {
		if !first[j] {
			out.add(nodes[j], fit[j])
		}
	}
	return out
}

// indexNodes is scanNodes for the nodes [lo, hi) of the domains ids, read from the shape's
// node index: the tightest node, or the fewest nodes in order of room, then the others in
// node order as distribute asks for them. Nodes that the search has already used are
// weighed on their live capacity, the others on the index's count.
func (s *searcher) indexNodes(k int32, l int, ids []int32, lo, hi int32, n int64) *nodeList {
	e := s.cn.sh[k]
	var total int64
	for _, d := range ids {
		total += e.capacity(s.c, l, d)
	}
	used := s.usedIn(lo, hi)
	live := make([]int64, len(used))
	for x, u := range used {
		live[x] = s.liveFit(u, k)
		total -= int64(e.cnt.s[u]) - live[x]
	}
	out := &nodeList{total: total}
	var picks []int32
	if n > 0 {
		if it, ok := s.tightestNode(k, lo, hi, n, used, live); ok {
			picks = []int32{it.i}
		} else if total >= n {
			rooms := s.byRoom(k, lo, hi, n, used, live)
			if it, ok := s.tightestNode(k, lo, hi, 1, used, live); ok {
				rooms.least = int64(it.cnt)
			}
			idx, _ := s.fb.search(rooms, n)
			for _, i := range idx {
				picks = append(picks, int32(i))
			}
		}
	}
	for _, i := range picks {
		out.add(i, s.liveFit(i, k))
	}
	slices.Sort(picks)
	next := lo
	out.more = func(out *nodeList) bool {
		for ; next < hi; next++ {
			if _, picked := slices.BinarySearch(picks, next); picked {
				continue
			}
			if f := s.liveFit(next, k); f > 0 {
				out.add(next, f)
				next++
				return true
			}
		}
		return false
	}
	return out
}

// usedIn returns the nodes in [lo, hi) that the search has taken pods on, in node order.
func (s *searcher) usedIn(lo, hi int32) []int32 {
	var out []int32
	for _, i := range s.usedList {
		if i >= lo && i < hi {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// tightestNode returns the node of [lo, hi) with the fewest pods of kind k room at or
// above n, the first in node order among equals: fewest's single-entry answer. The index
// is walked by count, jumping over the nodes outside the range and those the search has
// used, which are weighed on their live capacity instead.
func (s *searcher) tightestNode(k int32, lo, hi int32, n int64, used []int32, live []int64) (nodeItem, bool) {
	var best nodeItem
	found := false
	t := s.nodeTree(k)
	from := nodeItem{int32(min(n, math.MaxInt32)), lo}
	for {
		// Walk on from `from` over the nodes the search has used; stop at the first
		// other node in range, or where the walk must jump.
		var it nodeItem
		ok := false
		t.AscendGreaterOrEqual(from, func(x nodeItem) bool {
			if x.i >= lo && x.i < hi {
				if _, u := slices.BinarySearch(used, x.i); u {
					return true
				}
			}
			it, ok = x, true
			return false
		})
		if !ok {
			break
		}
		if it.i < lo {
			from = nodeItem{it.cnt, lo}
			continue
		}
		if it.i >= hi {
			from = nodeItem{it.cnt + 1, lo}
			continue
		}
		best, found = it, true
		break
	}
	for x, u := range used {
		if live[x] >= n && (!found || live[x] < int64(best.cnt) || (live[x] == int64(best.cnt) && u < best.i)) {
			best, found = nodeItem{int32(live[x]), u}, true
		}
	}
	return best, found
}

// byRoom lists the nodes of [lo, hi) with room for a pod of kind k as fewest's search reads
// them, most room first and equal rooms in node order, produced one at a time: the index
// is walked down by count, ascending in node order within a count, and merged with the
// used nodes on their live capacity.
func (s *searcher) byRoom(k int32, lo, hi int32, want int64, used []int32, live []int64) *roomList {
	t := s.nodeTree(k)
	var ups []nodeItem // used nodes with room, on their live capacity
	for x, u := range used {
		if live[x] > 0 {
			ups = append(ups, nodeItem{int32(live[x]), u})
		}
	}
	slices.SortFunc(ups, func(a, b nodeItem) int {
		if a.cnt != b.cnt {
			return int(b.cnt - a.cnt)
		}
		return int(a.i - b.i)
	})
	var group int32 // the count being walked down; 0 once the index is exhausted
	if m, ok := t.Max(); ok {
		group = m.cnt
	}
	pos := lo
	batch := make([]nodeItem, 0, 64) // the next unused nodes of the index in range, in order
	var head nodeItem
	// advance sets head to the next unused node of the index in range, if any. It reads
	// the index a batch at a time: one walk of the tree per node would cost more than
	// the rest of the search.
	advance := func() bool {
		for len(batch) == 0 && group > 0 {
			more := false
			t.AscendRange(nodeItem{group, pos}, nodeItem{group, hi}, func(x nodeItem) bool {
				pos = x.i + 1
				if _, u := slices.BinarySearch(used, x.i); !u {
					batch = append(batch, x)
				}
				more = len(batch) < 64
				return more
			})
			if !more && len(batch) > 0 {
				break
			}
			// No more nodes in range with this count: go down to the next count present.
			next := int32(0)
			t.DescendLessOrEqual(nodeItem{group - 1, math.MaxInt32}, func(x nodeItem) bool { next = x.cnt; return false })
			group, pos = next, lo
			if len(batch) > 0 {
				break
			}
		}
		if len(batch) == 0 {
			return false
		}
		head, batch = batch[0], batch[1:]
		return true
	}
	haveHead := advance()
	// fewest reads about as many entries as it takes nodes of the most room to hold the
	// pods; sizing for that saves growing the list entry by entry.
	size := int(hi - lo)
	if haveHead {
		size = min(size, int(want/int64(head.cnt))+64)
	}
	return &roomList{idx: make([]int, 0, size), room: make([]int64, 0, size), more: func(r *roomList) bool {
		useHead := haveHead
		if len(ups) > 0 && (!haveHead || ups[0].cnt > head.cnt || (ups[0].cnt == head.cnt && ups[0].i < head.i)) {
			useHead = false
		} else if !haveHead {
			return false
		}
		var it nodeItem
		if useHead {
			it = head
			haveHead = advance()
		} else {
			it, ups = ups[0], ups[1:]
		}
		r.idx = append(r.idx, int(it.i))
		r.room = append(r.room, int64(it.cnt))
		return true
	}}
}
