package topology

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// maxNodes bounds a cluster's nodes so that sums of per-node pod counts (each at most
// maxPods) cannot overflow.
const maxNodes = 1 << 24

// Node describes one node of a cluster: its name, its place in the topology (a value per
// level, keyed by level name) and its free capacity.
type Node struct {
	// Name identifies the node; it is unique in a cluster and not empty.
	Name string
	// Labels maps a level name to the node's value at that level, e.g. "rack": "r1".
	// Labels for names that are not levels are ignored. A node whose label is missing or
	// empty for any level is outside the topology (see the package doc).
	Labels map[string]string
	// Free is the capacity still free on the node; Free[Pods], when present, is its count
	// of free pod slots.
	Free Resources
}

// Cluster is a topology (ordered levels, widest first) together with its nodes and their
// free capacity. It places requests (Place) and keeps the free capacity up to date when
// the host commits placements (Apply, Remove).
//
// Only NewCluster makes a usable Cluster. A nil or zero Cluster has no levels, nodes or
// domains, and Place, Fit, FromGang, Apply and Remove on it return an error matching
// ErrInvalidCluster.
//
// Concurrency: the structure (levels, nodes, domains) never changes after NewCluster.
// Read methods (Place, FromGang, Fit, Free, Nodes, Domains, Levels, Clone) may run
// concurrently with each other; Apply and Remove must not run concurrently with any other
// method on the same Cluster. Place fills a cache of counts per pod shape that later calls
// reuse, under a lock of the Cluster's own. Clones share immutable structure, and the
// aggregates and cached counts copy on write, so distinct clones may be used from
// different goroutines without coordination.
type Cluster struct {
	levels   []string       // user level names, widest first
	levelIdx map[string]int // user level name → internal level
	res      []string       // resource names, sorted; the columns of free
	resIdx   map[string]int
	slots    int    // column of Pods in res, -1 when no node limits slots
	slotted  []bool // per node: whether it was given a slot count

	names   []string            // node names in internal order
	labels  []map[string]string // per node, a copy of its labels
	nodeIdx map[string]int32
	inTopo  int // nodes[:inTopo] are inside the topology, sorted by path then name

	// free holds len(res) quantities per node; the Pods column is Unlimited for a node
	// that does not limit its slots. It changes only through change, which keeps agg
	// and the shape indexes in step with it.
	free []int64

	agg    aggregates  // per-domain sums and maxima of free, whatever the shape
	shapes *shapeCache // per-shape counts that Place reuses across calls

	// lv[0] is the whole cluster (one domain, every node), lv[1] the topology (one domain,
	// the nodes inside it), lv[i+2] the user level levels[i]. Domains of a level are
	// sorted by path, component by component, so every domain's nodes and descendants
	// are contiguous ranges.
	lv []domainLevel
}

// domainLevel holds the domains of one internal level.
type domainLevel struct {
	path   [][]string // path[d] is the values of domain d, one per user level down to this one
	start  []int32    // nodes of domain d are [start[d], start[d+1])
	parent []int32    // domain at the level above; -1 at level 0
	child  []int32    // first domain at the level below; child[len] closes the last range
	// joined[d] is path[d] joined by '/', kept for the levels whose domains hold several
	// nodes (a placement names them); nil for a level of one node per domain, whose
	// paths are joined when asked for rather than held for every node.
	joined []string
}

func (l *domainLevel) count() int { return len(l.path) }

// NewCluster returns a cluster with the given levels (widest first, e.g. "zone", "block",
// "rack", "hostname") and nodes. It rejects empty or repeated level and node names, the
// reserved level name Pods, label values that contain '/', and negative quantities.
func NewCluster(levels []string, nodes []Node) (*Cluster, error) {
	c := &Cluster{levelIdx: make(map[string]int, len(levels)), resIdx: map[string]int{}, slots: -1}
	for i, l := range levels {
		field := fmt.Sprintf("levels[%d]", i)
		if l == "" {
			return nil, clusterErr(field, `""`, "a level needs a name")
		}
		if _, dup := c.levelIdx[l]; dup {
			return nil, clusterErr(field, fmt.Sprintf("%q", l), "level names must be unique")
		}
		c.levelIdx[l] = i + 2
	}
	c.levels = slices.Clone(levels)

	if len(nodes) > maxNodes {
		return nil, clusterErr("nodes", fmt.Sprint(len(nodes)), fmt.Sprintf("a cluster has at most %d nodes", maxNodes))
	}
	seen := make(map[string]bool, len(nodes))
	resSet := map[string]bool{}
	for i, n := range nodes {
		field := fmt.Sprintf("nodes[%d]", i)
		if n.Name == "" {
			return nil, clusterErr(field+".name", `""`, "a node needs a name")
		}
		if seen[n.Name] {
			return nil, clusterErr(field+".name", fmt.Sprintf("%q", n.Name), "node names must be unique")
		}
		seen[n.Name] = true
		for _, l := range levels {
			if v := n.Labels[l]; strings.Contains(v, "/") {
				return nil, clusterErr(fmt.Sprintf("%s.labels[%q]", field, l), fmt.Sprintf("%q", v), "a level value must not contain '/'")
			}
		}
		for r, q := range n.Free {
			if r == "" {
				return nil, clusterErr(field+".free", `""`, "a resource needs a name")
			}
			if q < 0 {
				return nil, clusterErr(fmt.Sprintf("%s.free[%q]", field, r), fmt.Sprint(q), "quantities must not be negative")
			}
			resSet[r] = true
		}
	}
	for r := range resSet {
		c.res = append(c.res, r)
	}
	slices.Sort(c.res)
	for i, r := range c.res {
		c.resIdx[r] = i
		if r == Pods {
			c.slots = i
		}
	}

	order, paths := c.sortNodes(nodes)
	nr := len(c.res)
	c.names = make([]string, len(order))
	c.labels = make([]map[string]string, len(order))
	c.nodeIdx = make(map[string]int32, len(order))
	c.free = make([]int64, len(order)*nr)
	c.slotted = make([]bool, len(order))
	for i, ni := range order {
		n := nodes[ni]
		c.names[i] = n.Name
		c.labels[i] = maps.Clone(n.Labels)
		c.nodeIdx[n.Name] = int32(i)
		row := c.free[i*nr : (i+1)*nr]
		if c.slots >= 0 {
			row[c.slots] = Unlimited
			_, c.slotted[i] = n.Free[Pods]
		}
		for r, q := range n.Free {
			row[c.resIdx[r]] = q
		}
	}
	c.buildDomains(order, paths)
	c.buildAggregates()
	c.shapes = &shapeCache{}
	return c, nil
}

// sortNodes returns node indices: nodes inside the topology by path then name, then the
// nodes outside it by name; and each node's path, its value per level (nil for a node
// outside the topology). It sets c.inTopo.
func (c *Cluster) sortNodes(nodes []Node) ([]int, [][]string) {
	// Each node's path is read from its labels once, not at every comparison.
	paths := make([][]string, len(nodes)) // nil for a node outside the topology
	values := make([]string, len(nodes)*len(c.levels))
	for i, n := range nodes {
		p := values[i*len(c.levels) : (i+1)*len(c.levels)]
		inside := true
		for j, l := range c.levels {
			if p[j] = n.Labels[l]; p[j] == "" {
				inside = false
			}
		}
		if inside {
			paths[i] = p
			c.inTopo++
		}
	}
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		pa, pb := paths[a], paths[b]
		if (pa == nil) != (pb == nil) {
			if pa != nil {
				return -1
			}
			return 1
		}
		if r := slices.Compare(pa, pb); r != 0 {
			return r
		}
		return cmp.Compare(nodes[a].Name, nodes[b].Name)
	})
	return order, paths
}

// buildDomains builds the levels' domains from the nodes in internal order and their
// paths. A domain's path is a prefix of its first node's, shared rather than copied.
func (c *Cluster) buildDomains(order []int, paths [][]string) {
	n := int32(len(order))
	c.lv = make([]domainLevel, len(c.levels)+2)
	c.lv[0] = domainLevel{path: [][]string{nil}, start: []int32{0, n}, parent: []int32{-1}}
	c.lv[1] = domainLevel{path: [][]string{nil}, start: []int32{0, int32(c.inTopo)}, parent: []int32{0}}
	for li := range c.levels {
		l := &c.lv[li+2]
		up := &c.lv[li+1]
		var prev []string
		parent := int32(0)
		for i := 0; i < c.inTopo; i++ {
			for int(parent)+1 < up.count() && int32(i) >= up.start[parent+1] {
				parent++
			}
			path := paths[order[i]][: li+1 : li+1]
			if prev == nil || !slices.Equal(prev, path) {
				l.path = append(l.path, path)
				l.start = append(l.start, int32(i))
				l.parent = append(l.parent, parent)
				prev = path
			}
		}
		l.start = append(l.start, int32(c.inTopo))
	}
	for li := 0; li+1 < len(c.lv); li++ {
		l, down := &c.lv[li], &c.lv[li+1]
		l.child = make([]int32, l.count()+1)
		j := int32(0)
		for d := 0; d <= l.count(); d++ {
			for int(j) < down.count() && down.parent[j] < int32(d) {
				j++
			}
			l.child[d] = j
		}
	}
	last := &c.lv[len(c.lv)-1]
	last.child = make([]int32, last.count()+1)
	for li := 2; li < len(c.lv); li++ {
		if l := &c.lv[li]; l.count() < c.inTopo {
			l.joined = make([]string, l.count())
			for d, p := range l.path {
				l.joined[d] = strings.Join(p, "/")
			}
		}
	}
}

// built returns nil for a Cluster made by NewCluster, and otherwise the error that its
// computing methods return.
func (c *Cluster) built() error {
	if c == nil || c.lv == nil {
		return clusterErr("cluster", "", "is not a cluster; use NewCluster")
	}
	return nil
}

// Levels returns the topology's level names, widest first.
func (c *Cluster) Levels() []string {
	if c == nil {
		return nil
	}
	return slices.Clone(c.levels)
}

// Nodes returns every node with its current free capacity: the nodes inside the topology
// ordered by path then name, then the nodes outside it by name. The result is a copy.
func (c *Cluster) Nodes() []Node {
	if c == nil {
		return nil
	}
	out := make([]Node, len(c.names))
	for i := range c.names {
		out[i] = Node{Name: c.names[i], Labels: maps.Clone(c.labels[i]), Free: c.freeOf(int32(i))}
	}
	return out
}

// Free returns the free capacity of the named node, and false when there is no such node.
// A Pods entry appears only for nodes that limit their slots.
func (c *Cluster) Free(node string) (Resources, bool) {
	if c == nil {
		return nil, false
	}
	i, ok := c.nodeIdx[node]
	if !ok {
		return nil, false
	}
	return c.freeOf(i), true
}

func (c *Cluster) freeOf(i int32) Resources {
	nr := len(c.res)
	r := make(Resources, nr)
	for j, q := range c.free[int(i)*nr : (int(i)+1)*nr] {
		if j == c.slots && !c.slotted[i] {
			continue
		}
		r[c.res[j]] = q
	}
	return r
}

// Clone returns an independent copy: Apply and Remove on one do not affect the other.
// The clone of a nil Cluster is nil.
//
// Clone copies the free capacity and shares everything else: the structure, which never
// changes, and the aggregates and per-shape counts that Place keeps, copy on write, so
// that the first Place on the clone does not count again what the original has counted.
func (c *Cluster) Clone() *Cluster {
	if c == nil {
		return nil
	}
	d := *c
	d.free = slices.Clone(c.free)
	if c.shapes != nil {
		d.agg = c.agg.shareAggregates()
		d.shapes = c.shapes.clone()
	}
	return &d
}

// Domains returns the domains of the named level in path order, or nil for an unknown
// level. Nodes outside the topology belong to no domain.
func (c *Cluster) Domains(level string) []Domain {
	if c == nil {
		return nil
	}
	li, ok := c.levelIdx[level]
	if !ok {
		return nil
	}
	out := make([]Domain, c.lv[li].count())
	for d := range out {
		out[d] = c.domain(li, int32(d))
	}
	return out
}

// domain returns the exported form of internal domain (li, d).
func (c *Cluster) domain(li int, d int32) Domain {
	if li < 2 {
		return Domain{}
	}
	if j := c.lv[li].joined; j != nil {
		return Domain{Level: c.levels[li-2], Path: j[d]}
	}
	return Domain{Level: c.levels[li-2], Path: strings.Join(c.lv[li].path[d], "/")}
}

// ancestor returns the domain at level up (up ≤ li) that contains domain (li, d).
func (c *Cluster) ancestor(li int, d int32, up int) int32 {
	for ; li > up; li-- {
		d = c.lv[li].parent[d]
	}
	return d
}

// descendants returns the range of domains at level down (down ≥ li) inside (li, d).
func (c *Cluster) descendants(li int, d int32, down int) (lo, hi int32) {
	lo, hi = d, d+1
	for ; li < down; li++ {
		lo, hi = c.lv[li].child[lo], c.lv[li].child[hi]
	}
	return lo, hi
}

// nodeDomain returns the domain at level li that holds node n, or -1 when the node is
// outside the topology and li ≥ 1.
func (c *Cluster) nodeDomain(n int32, li int) int32 {
	if li == 0 {
		return 0
	}
	if int(n) >= c.inTopo {
		return -1
	}
	l := &c.lv[li]
	// The last domain whose range starts at or before n.
	d := sort.Search(l.count(), func(d int) bool { return l.start[d] > n })
	return int32(d - 1)
}
