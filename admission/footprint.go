package admission

import (
	"cmp"
	"iter"
	"slices"

	"github.com/poolgate/poolgate/internal/combin"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// footprint is where a plan's candidates hold pods.
type footprint struct {
	// on lists, per node, the candidates with pods there, largest first (the sum of
	// the request, resource by resource), ties in eviction order.
	on map[string][]*record
	// byLevel[k−1] holds the candidates whose best rank on any node is k, in eviction
	// order.
	byLevel [][]*record
	// pos is each candidate's place in the eviction order the index was built with,
	// and level its level: what drop needs to keep the index as a new build would be.
	pos, level map[*record]int
}

// footprintOf indexes the pods of cands, given in eviction order. Candidates without
// a placement hold no node and have no level.
func footprintOf(cands []*record) *footprint {
	fp := &footprint{on: map[string][]*record{}, pos: make(map[*record]int, len(cands)), level: make(map[*record]int, len(cands))}
	for i, c := range cands {
		fp.pos[c] = i
		for node := range podNodes(c) {
			fp.on[node] = append(fp.on[node], c)
		}
	}
	for _, list := range fp.on {
		slices.SortStableFunc(list, fp.larger)
		for rank, c := range list {
			if l, ok := fp.level[c]; !ok || rank+1 < l {
				fp.level[c] = rank + 1
			}
		}
	}
	for _, c := range cands {
		if l, ok := fp.level[c]; ok {
			for len(fp.byLevel) < l {
				fp.byLevel = append(fp.byLevel, nil)
			}
			fp.byLevel[l-1] = append(fp.byLevel[l-1], c)
		}
	}
	return fp
}

// larger orders candidates on a node: largest request first, ties in eviction order.
func (fp *footprint) larger(a, b *record) int {
	if c := slices.Compare(b.vec, a.vec); c != 0 {
		return c
	}
	return fp.pos[a] - fp.pos[b]
}

// podNodes yields the nodes where c holds pods, each once, in its placement's order.
// It allocates nothing: a plan's footprint reads every candidate's nodes.
func podNodes(c *record) iter.Seq[string] {
	return func(yield func(string) bool) {
		if c.placement == nil {
			return
		}
		as := c.placement.Assignments
		if len(as) == 1 { // most work: one group on one node
			if as[0].Pods > 0 {
				yield(as[0].Node)
			}
			return
		}
		for k, a := range as {
			if a.Pods > 0 && !slices.ContainsFunc(as[:k], func(b topology.Assignment) bool { return b.Node == a.Node && b.Pods > 0 }) {
				if !yield(a.Node) {
					return
				}
			}
		}
	}
}

// onOneNode reports whether c's pods sit on one node at most.
func onOneNode(c *record) bool {
	n := 0
	for range podNodes(c) {
		if n++; n > 1 {
			return false
		}
	}
	return true
}

// drop takes the candidates gone out of the index, as evicting them does: what is left
// is the index footprintOf builds of the remaining candidates. The candidates that
// shared a node with one that went move up its list, and may reach a lower level; drop
// returns those that reach the first. Its cost follows the nodes the gone ones held,
// not the candidates.
func (fp *footprint) drop(gone []*record) (first []*record) {
	moved := map[*record]bool{}
	for _, v := range gone {
		l, ok := fp.level[v]
		if !ok {
			continue
		}
		fp.byLevel[l-1] = fp.remove(fp.byLevel[l-1], v)
		delete(fp.level, v)
		delete(moved, v)
		for node := range podNodes(v) {
			list := fp.on[node]
			i := slices.Index(list, v)
			list = slices.Delete(list, i, i+1)
			for rank := i; rank < len(list); rank++ {
				if c := list[rank]; rank+1 < fp.level[c] {
					moved[c] = true
				}
			}
			if len(list) == 0 {
				delete(fp.on, node)
			} else {
				fp.on[node] = list
			}
		}
	}
	for c := range moved {
		l := fp.level[c]
		for node := range podNodes(c) {
			l = min(l, slices.Index(fp.on[node], c)+1)
		}
		fp.byLevel[fp.level[c]-1] = fp.remove(fp.byLevel[fp.level[c]-1], c)
		list := fp.byLevel[l-1]
		i, _ := slices.BinarySearchFunc(list, fp.pos[c], func(x *record, p int) int { return fp.pos[x] - p })
		fp.byLevel[l-1] = slices.Insert(list, i, c)
		fp.level[c] = l
		if l == 1 {
			first = append(first, c)
		}
	}
	for _, v := range gone {
		delete(fp.pos, v)
	}
	for len(fp.byLevel) > 0 && len(fp.byLevel[len(fp.byLevel)-1]) == 0 {
		fp.byLevel = fp.byLevel[:len(fp.byLevel)-1]
	}
	// The order of the map walk above must not show.
	slices.SortFunc(first, func(a, b *record) int { return fp.pos[a] - fp.pos[b] })
	return first
}

// remove takes c out of list, a list of candidates in eviction order.
func (fp *footprint) remove(list []*record, c *record) []*record {
	i, ok := slices.BinarySearchFunc(list, fp.pos[c], func(x *record, p int) int { return fp.pos[x] - p })
	if !ok {
		return list
	}
	return slices.Delete(list, i, i+1)
}

// cover returns the victims a placement p needs, found with the candidates of level at
// most k evicted (as cluster holds them): on each of p's nodes, in p's order, when p needs
// more than the node has without evictions, the fewest candidates with pods there (then
// those whose requests are smallest) that make up the difference, counting what the
// victims chosen for earlier nodes free there.
func (fp *footprint) cover(cluster *topology.Cluster, k int, p topology.Placement) map[*record]bool {
	evicted := map[*record]bool{}
	for _, l := range fp.byLevel[:k] {
		for _, c := range l {
			evicted[c] = true
		}
	}
	chosen := map[*record]bool{}
	cols := columnsOf(p)
	need := cols.byNode(p)
	for _, node := range placementNodes(p) {
		free, _ := cluster.Free(node)
		// What each candidate holds there, read off its placement once: a workload
		// spread over many nodes has many assignments, and every resource asks.
		list := fp.on[node]
		held := make([][]int64, len(list))
		for i, c := range list {
			held[i] = cols.heldAt(c, node)
		}
		short := topology.Resources{}
		for j, q := range need[node] {
			have := free[cols.names[j]]
			for i, c := range list {
				if evicted[c] {
					have -= held[i][j]
				}
				if chosen[c] {
					have += held[i][j]
				}
			}
			if q > have {
				short[cols.names[j]] = q - have
			}
		}
		if len(short) == 0 {
			continue
		}
		var here []*record
		var amounts []topology.Resources
		for i, c := range list {
			if chosen[c] {
				continue
			}
			amount := make(topology.Resources, len(short))
			for res := range short {
				amount[res] = held[i][cols.index[res]]
			}
			here, amounts = append(here, c), append(amounts, amount)
		}
		for _, c := range fewestCovering(here, short, amounts) {
			chosen[c] = true
		}
	}
	return chosen
}

// columns numbers the resources a placement asks for, so that what a node needs and
// what its candidates hold are slices, not maps of every resource.
type columns struct {
	names []string
	index map[string]int
}

// columnsOf numbers the resources of p's shapes.
func columnsOf(p topology.Placement) columns {
	cols := columns{index: map[string]int{}}
	for _, a := range p.Assignments {
		for res := range a.Shape {
			if _, ok := cols.index[res]; !ok {
				cols.index[res] = len(cols.names)
				cols.names = append(cols.names, res)
			}
		}
	}
	return cols
}

// byNode sums p's resources per node. The assignments of one group share their shape,
// which is numbered once.
func (cols columns) byNode(p topology.Placement) map[string][]int64 {
	out := map[string][]int64{}
	shape := map[string][]int64{}
	for _, a := range p.Assignments {
		v := shape[a.Group]
		if v == nil {
			v = cols.vector(a.Shape)
			shape[a.Group] = v
		}
		m := out[a.Node]
		if m == nil {
			m = make([]int64, len(cols.names))
			out[a.Node] = m
		}
		for j, q := range v {
			m[j] += a.Pods * q
		}
	}
	return out
}

// heldAt returns what c's pods hold on node, in cols' resources.
func (cols columns) heldAt(c *record, node string) []int64 {
	out := make([]int64, len(cols.names))
	for _, a := range c.placement.Assignments {
		if a.Node == node {
			for res, q := range a.Shape {
				if j, ok := cols.index[res]; ok {
					out[j] += a.Pods * q
				}
			}
		}
	}
	return out
}

// vector returns r in cols' resources (those it does not number left out).
func (cols columns) vector(r topology.Resources) []int64 {
	out := make([]int64, len(cols.names))
	for res, q := range r {
		if j, ok := cols.index[res]; ok {
			out[j] = q
		}
	}
	return out
}

// fewestCovering returns the fewest of cands whose amounts (amounts[i] is what
// cands[i] frees) together reach short on every resource, the smallest requests first
// among sets of that size (ties in cands' order), or all of cands when no set within
// maxCoverSets tries does. A size whose largest amounts cannot reach short on some
// resource is passed over without trying its sets: a node whose pods are all needed
// (a whole node freed for one pod) costs one try, not every smaller set.
func fewestCovering(cands []*record, short topology.Resources, amounts []topology.Resources) []*record {
	covers := func(set []int) bool {
		for res, q := range short {
			var sum int64
			for _, i := range set {
				sum += amounts[i][res]
			}
			if sum < q {
				return false
			}
		}
		return true
	}
	size := func(set []int) []quota.Quantity {
		var out []quota.Quantity
		for _, i := range set {
			for j, x := range cands[i].vec {
				for len(out) <= j {
					out = append(out, 0)
				}
				out[j] = out[j].Add(x)
			}
		}
		return out
	}
	// most[res][k-1]: the most any k candidates free of res, their k largest amounts.
	most := make(map[string][]int64, len(short))
	for res := range short {
		col := make([]int64, len(cands))
		for i := range cands {
			col[i] = amounts[i][res]
		}
		slices.SortFunc(col, func(a, b int64) int { return cmp.Compare(b, a) })
		for k := 1; k < len(col); k++ {
			col[k] += col[k-1]
		}
		most[res] = col
	}
	reachable := func(k int) bool {
		for res, q := range short {
			if most[res][k-1] < q {
				return false
			}
		}
		return true
	}
	tries := 0
	for k := 1; k <= len(cands); k++ {
		if !reachable(k) {
			continue
		}
		idx := make([]int, k)
		combin.First(idx)
		var best []int
		var bestSize []quota.Quantity
		for {
			if tries++; tries > maxCoverSets {
				return cands
			}
			if covers(idx) {
				if sz := size(idx); best == nil || slices.Compare(sz, bestSize) < 0 {
					best, bestSize = slices.Clone(idx), sz
				}
			}
			if !combin.Next(idx, len(cands)) {
				break
			}
		}
		if best != nil {
			out := make([]*record, len(best))
			for i, j := range best {
				out[i] = cands[j]
			}
			return out
		}
	}
	return cands
}

// placementNodes returns a placement's nodes in the order they first appear.
func placementNodes(p topology.Placement) []string {
	var out []string
	for _, a := range p.Assignments {
		if !slices.Contains(out, a.Node) {
			out = append(out, a.Node)
		}
	}
	return out
}

// maxCoverSets bounds the victim sets tried on one node when choosing the fewest
// victims there; past it, every candidate on the node is taken and the fill-back trims
// them. Nodes rarely hold more than a handful of candidates.
const maxCoverSets = 4096

// chosenOf returns the members of cands that chosen holds, in cands' order.
func chosenOf(cands []*record, chosen map[*record]bool) []*record {
	var out []*record
	for _, c := range cands {
		if chosen[c] {
			out = append(out, c)
		}
	}
	return out
}

// shapeRoom returns the tally of a's pods on s's cluster when a is a gang of one shape
// (topology.PodRoom), nil for a gang of several or a shape the cluster refuses. It reads
// the cluster s holds now.
func shapeRoom(s *state, a *ask) *topology.PodRoom {
	root := &a.place.Root
	if len(root.Children) != 0 {
		return nil
	}
	room, err := s.cluster.PodRoom(root.Shape, root.Selector)
	if err != nil {
		return nil
	}
	return room
}

// podsTaken returns how many fewer pods of room's shape fit once c's pods are placed
// again on its nodes, on the cluster room reads.
func podsTaken(room *topology.PodRoom, c *record) int64 {
	var n int64
	for node := range podNodes(c) {
		if !room.On(node) {
			continue
		}
		before := room.Count()
		room.Free(c.foot, -1)
		n += before - room.Count()
	}
	return n
}
