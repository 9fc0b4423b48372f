package topology

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/poolgate/poolgate/internal/sat"
)

// maxNodes bounds a cluster's nodes so that sums of per-node pod counts (each at most
// maxPods) cannot overflow.
const maxNodes = 1 << 24

// Node describes one node of a cluster: its name, its labels (among them its place in
// the topology, a value per level), its capacity, what of it is free, and whether it is
// cordoned.
type Node struct {
	// Name identifies the node; it is unique in a cluster and not empty.
	Name string
	// Labels maps label keys to values. The keys that name levels place the node in the
	// topology, e.g. "rack": "r1"; a node whose label is missing or empty for any level
	// is outside the topology (see the package doc). The others are for node selectors,
	// e.g. "model": "V100M32".
	Labels map[string]string
	// Free is the capacity still free on the node; Free[Pods], when present, is its count
	// of free pod slots. It is below zero, in Nodes, for a node whose capacity dropped
	// below what is placed on it (see SetCapacity).
	Free Resources
	// Capacity is the node's whole capacity, what is placed on it included; nil means
	// Free: nothing is placed yet. Given, every quantity of Free must be at most the
	// capacity's, which may then be below zero; a resource with an Unlimited capacity
	// has an Unlimited free quantity. Capacity[Pods], when present, is the node's pod
	// slots. Nodes reports it.
	Capacity Resources
	// Cordoned nodes take no new placements: Place never uses them. What runs on them
	// stays, and Apply still takes a placement that uses them (a host restoring the
	// work it runs).
	Cordoned bool
}

// Cluster is a topology (ordered levels, widest first) together with its nodes, their
// capacity and what of it is free. It places requests (Place), keeps the free capacity
// up to date when the host commits placements (Apply, Remove), and follows the nodes as
// they change (AddNode, RemoveNode, Cordon, Uncordon, SetCapacity).
//
// Only NewCluster makes a usable Cluster. A nil or zero Cluster has no levels, nodes or
// domains, and Place, Fit, FromGang, Apply and Remove on it return an error matching
// ErrInvalidCluster.
//
// Concurrency: read methods (Place, FromGang, Fit, Free, Capacity, Nodes, Domains,
// Levels, Clone) may run concurrently with each other; Apply, Remove and the node
// changes must not run concurrently with any other method on the same Cluster. Place
// fills a cache of counts per pod shape that later calls reuse, under a lock of the
// Cluster's own. Clones share the structure and the cached counts copy on write, so
// distinct clones may be used, and changed, from different goroutines without
// coordination.
type Cluster struct {
	levels   []string       // user level names, widest first
	levelIdx map[string]int // user level name → internal level
	res      []string       // resource names, sorted; the columns of free
	resIdx   map[string]int
	slots    int // column of Pods in res; -1 only in a zero Cluster

	// Nodes have slots, their indices, which never change while the structure stands:
	// a node removed leaves its slot behind, marked gone, and one added back under its
	// name and place takes it again. A node added anywhere else lays the structure out
	// anew (relayout), which drops the slots of the nodes gone.
	names   []string               // node names in slot order
	labels  cow[map[string]string] // per slot, a copy of its labels
	nodeIdx map[string]int32       // name → slot, gone nodes included; never changed in place
	inTopo  int                    // slots[:inTopo] are inside the topology, sorted by path then name
	flags   cow[uint8]             // per slot: gone, cordoned, slotted
	layout  *layoutTag             // this structure; footprints compiled on another translate their nodes

	// free holds len(res) quantities per slot; the Pods column is Unlimited for a node
	// that does not limit its slots. It changes only through an updater, which keeps
	// agg and the shape indexes in step with it. used holds, alike, what the placements
	// applied hold of each node (exactly: Apply refuses what would bring it to Unlimited,
	// and NewCluster a node described so), so that capacity = free +
	// used whatever changes.
	free []int64
	used []int64

	agg    aggregates  // per-domain sums and maxima of free, whatever the shape
	shapes *shapeCache // per-shape counts that Place reuses across calls
	// matched remembers which nodes match each selector asked about (matchAll). It
	// depends on the labels only, so clones share it with the labels; a cluster that
	// changes its labels takes a new one.
	matched *matchMemo
	// chg is the scratch of the changes to the free capacity, this cluster's own, never
	// shared with a clone (see changeScratch); nil until the first change.
	chg *changeScratch

	// lv[0] is the whole cluster (one domain, every node), lv[1] the topology (one domain,
	// the nodes inside it), lv[i+2] the user level levels[i]. Domains of a level are
	// sorted by path, component by component, so every domain's nodes and descendants
	// are contiguous ranges.
	lv []domainLevel
}

// The flags of a node's slot.
const (
	flagGone     uint8 = 1 << iota // removed: the slot holds no node
	flagCordoned                   // takes no new placements
	flagSlotted                    // was given a pod slot count
)

// layoutTag tells one layout of a cluster's nodes from another: footprints keep the
// tag of the cluster that compiled them.
type layoutTag struct{ _ byte }

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
// reserved level name Pods, label values that contain '/', negative quantities (but
// for the free quantities of a node that gives its capacity), and free quantities above
// the capacity. NewCluster of a cluster's Nodes gives a cluster that places as it does.
func NewCluster(levels []string, nodes []Node) (*Cluster, error) {
	c := &Cluster{levelIdx: make(map[string]int, len(levels)), resIdx: map[string]int{}, slots: -1}
	for i, l := range levels {
		field := fmt.Sprintf("levels[%d]", i)
		if l == "" {
			return nil, clusterErr(field, `""`, "a level needs a name")
		}
		if l == Pods {
			return nil, clusterErr(field, fmt.Sprintf("%q", l), "the name is reserved for a node's pod slots")
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
		if err := c.checkNode(field, n); err != nil {
			return nil, err
		}
		if seen[n.Name] {
			return nil, clusterErr(field+".name", fmt.Sprintf("%q", n.Name), "node names must be unique")
		}
		seen[n.Name] = true
		for r := range n.Free {
			resSet[r] = true
		}
		for r := range n.Capacity {
			resSet[r] = true
		}
	}
	c.setColumns(resSet)
	st := newStage(len(nodes), len(c.res))
	for k, n := range nodes {
		st.names[k] = n.Name
		st.labels[k] = maps.Clone(n.Labels)
		free, used := st.row(k)
		st.flags[k] = c.rows(n, free, used)
	}
	c.lay(st)
	return c, nil
}

// setColumns sets the resource columns: the resources named, and Pods, which is always
// kept, whether or not a node limits its slots, so that the pods a node holds are
// counted from the start: a slot limit set later, or a Remove, reads them.
func (c *Cluster) setColumns(resSet map[string]bool) {
	resSet[Pods] = true
	c.res = c.res[:0]
	for r := range resSet {
		c.res = append(c.res, r)
	}
	slices.Sort(c.res)
	c.resIdx = make(map[string]int, len(c.res))
	for i, r := range c.res {
		c.resIdx[r] = i
		if r == Pods {
			c.slots = i
		}
	}
}

// stage is nodes on their way into a layout, in any order: names, labels (which the
// cluster keeps as they are), flags, and free and used rows over the cluster's columns.
type stage struct {
	names      []string
	labels     []map[string]string
	flags      []uint8
	free, used []int64
	nr         int
}

func newStage(n, nr int) *stage {
	return &stage{names: make([]string, n), labels: make([]map[string]string, n), flags: make([]uint8, n),
		free: make([]int64, n*nr), used: make([]int64, n*nr), nr: nr}
}

// row returns node k's free and used rows.
func (st *stage) row(k int) ([]int64, []int64) {
	return st.free[k*st.nr : (k+1)*st.nr], st.used[k*st.nr : (k+1)*st.nr]
}

// lay lays the staged nodes out: slots in order (inside the topology by path then name,
// then outside by name), the domains, the aggregates, an empty shape cache and a new
// layout tag.
func (c *Cluster) lay(st *stage) {
	order, paths := c.sortNodes(st.names, st.labels)
	nr := len(c.res)
	n := len(order)
	c.names = make([]string, n)
	labels := make([]map[string]string, n)
	flags := make([]uint8, n)
	c.nodeIdx = make(map[string]int32, n)
	c.free = make([]int64, n*nr)
	c.used = make([]int64, n*nr)
	for i, k := range order {
		c.names[i] = st.names[k]
		labels[i] = st.labels[k]
		flags[i] = st.flags[k]
		c.nodeIdx[st.names[k]] = int32(i)
		copy(c.free[i*nr:(i+1)*nr], st.free[k*nr:(k+1)*nr])
		copy(c.used[i*nr:(i+1)*nr], st.used[k*nr:(k+1)*nr])
	}
	c.labels, c.flags = newCow(labels), newCow(flags)
	c.matched = &matchMemo{}
	c.layout = &layoutTag{}
	c.buildDomains(order, paths)
	c.buildAggregates()
	c.shapes = &shapeCache{}
}

// checkNode checks a node's description: its name, its level labels and its quantities.
func (c *Cluster) checkNode(field string, n Node) error {
	if n.Name == "" {
		return clusterErr(field+".name", `""`, "a node needs a name")
	}
	for _, l := range c.levels {
		if v := n.Labels[l]; strings.Contains(v, "/") {
			return clusterErr(fmt.Sprintf("%s.labels[%q]", field, l), fmt.Sprintf("%q", v), "a level value must not contain '/'")
		}
	}
	if err := checkCapacity(field+".capacity", n.Capacity); err != nil {
		return err
	}
	for r, q := range n.Free {
		switch {
		case r == "":
			return clusterErr(field+".free", `""`, "a resource needs a name")
		case n.Capacity == nil && q < 0:
			return clusterErr(fmt.Sprintf("%s.free[%q]", field, r), fmt.Sprint(q), "quantities must not be negative")
		case n.Capacity != nil && q > n.Capacity[r]:
			return clusterErr(fmt.Sprintf("%s.free[%q]", field, r), fmt.Sprint(q), fmt.Sprintf("exceeds the capacity, %d", n.Capacity[r]))
		case n.Capacity != nil && n.Capacity[r] == Unlimited && q != Unlimited:
			return clusterErr(fmt.Sprintf("%s.free[%q]", field, r), fmt.Sprint(q), "an Unlimited capacity is all free: nothing placed on it is counted")
		case n.Capacity != nil && n.Capacity[r] != Unlimited && sat.Sub(n.Capacity[r], q) == Unlimited:
			// What is placed is counted exactly, below Unlimited (see Cluster.used).
			return clusterErr(fmt.Sprintf("%s.free[%q]", field, r), fmt.Sprint(q),
				fmt.Sprintf("leaves more placed on the node than it can count: capacity less free must stay below %d", Unlimited))
		}
	}
	return nil
}

// checkCapacity checks a capacity: named resources, no negative quantity.
func checkCapacity(field string, capacity Resources) error {
	for r, q := range capacity {
		switch {
		case r == "":
			return clusterErr(field, `""`, "a resource needs a name")
		case q < 0:
			return clusterErr(fmt.Sprintf("%s[%q]", field, r), fmt.Sprint(q), "quantities must not be negative")
		}
	}
	return nil
}

// rows writes node n's free and used quantities into the rows given, over c's columns
// (every resource of n is one), and returns its flags. A node given a capacity and no
// free quantities has all of it free; one given a capacity uses what it does not list
// as free. A node without a slot count has Unlimited slots, of which nothing is counted
// used but the pods it takes from then on.
func (c *Cluster) rows(n Node, free, used []int64) uint8 {
	given := n.Free
	if given == nil && n.Capacity != nil {
		given = n.Capacity
	}
	var flags uint8
	for j, r := range c.res {
		q, listed := given[r]
		capacity, capped := n.Capacity[r]
		free[j], used[j] = q, 0
		switch {
		case j == c.slots && !listed && !capped:
			free[j] = Unlimited // no slot limit
		case n.Capacity == nil:
		case capacity == Unlimited:
			free[j] = Unlimited
		default:
			used[j] = capacity - q
		}
		if j == c.slots && (listed || capped) {
			flags |= flagSlotted
		}
	}
	if n.Cordoned {
		flags |= flagCordoned
	}
	return flags
}

// sortNodes returns node indices: nodes inside the topology by path then name, then the
// nodes outside it by name; and each node's path, its value per level (nil for a node
// outside the topology). It sets c.inTopo.
func (c *Cluster) sortNodes(names []string, labels []map[string]string) ([]int, [][]string) {
	// Each node's path is read from its labels once, not at every comparison.
	paths := make([][]string, len(names)) // nil for a node outside the topology
	values := make([]string, len(names)*len(c.levels))
	c.inTopo = 0
	for i := range names {
		p := values[i*len(c.levels) : (i+1)*len(c.levels)]
		inside := true
		for j, l := range c.levels {
			if p[j] = labels[i][l]; p[j] == "" {
				inside = false
			}
		}
		if inside {
			paths[i] = p
			c.inTopo++
		}
	}
	order := make([]int, len(names))
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
		return cmp.Compare(names[a], names[b])
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

// ResourceNames returns the resources the cluster counts, in name order: every resource
// a node listed, in its capacity or free capacity, since NewCluster, those of nodes
// removed since included, so that a node added later lists them too (at 0 when it does
// not name them). Pods, which every cluster counts, is left out.
func (c *Cluster) ResourceNames() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.res))
	for _, r := range c.res {
		if r != Pods {
			out = append(out, r)
		}
	}
	return out
}

// Nodes returns every node with its labels, capacity and current free capacity, and
// whether it is cordoned: the nodes inside the topology ordered by path then name, then
// the nodes outside it by name. The result is a copy.
func (c *Cluster) Nodes() []Node {
	if c == nil {
		return nil
	}
	out := make([]Node, 0, len(c.names))
	for i := range int32(len(c.names)) {
		if c.gone(i) {
			continue
		}
		out = append(out, c.nodeAt(i))
	}
	return out
}

// Node returns the named node with its labels, capacity, free capacity and cordon, as
// Nodes lists it, and false when there is no such node. The result is a copy; its cost
// is that of the one node.
func (c *Cluster) Node(name string) (Node, bool) {
	i, ok := c.node(name)
	if !ok {
		return Node{}, false
	}
	return c.nodeAt(i), true
}

// nodeAt returns slot i's node, a copy.
func (c *Cluster) nodeAt(i int32) Node {
	return Node{Name: c.names[i], Labels: maps.Clone(c.labels.s[i]), Free: c.freeOf(i), Capacity: c.capacityOf(i),
		Cordoned: c.flags.s[i]&flagCordoned != 0}
}

// Free returns the free capacity of the named node, and false when there is no such node.
// A Pods entry appears only for nodes that limit their slots. A quantity is below zero
// when the node's capacity dropped below what is placed on it.
func (c *Cluster) Free(node string) (Resources, bool) {
	i, ok := c.node(node)
	if !ok {
		return nil, false
	}
	return c.freeOf(i), true
}

// Capacity returns the capacity of the named node, what is placed on it included, and
// false when there is no such node. A Pods entry appears only for nodes that limit their
// slots.
func (c *Cluster) Capacity(node string) (Resources, bool) {
	i, ok := c.node(node)
	if !ok {
		return nil, false
	}
	return c.capacityOf(i), true
}

// node returns the slot of the named node, and false when no node has that name (or it
// was removed).
func (c *Cluster) node(name string) (int32, bool) {
	if c == nil || c.lv == nil {
		return 0, false
	}
	i, ok := c.nodeIdx[name]
	if !ok || c.gone(i) {
		return 0, false
	}
	return i, true
}

// gone reports whether slot i's node was removed.
func (c *Cluster) gone(i int32) bool { return c.flags.s[i]&flagGone != 0 }

func (c *Cluster) freeOf(i int32) Resources {
	return c.rowOf(i, func(j int) int64 { return c.free[int(i)*len(c.res)+j] })
}

func (c *Cluster) capacityOf(i int32) Resources {
	nr := len(c.res)
	return c.rowOf(i, func(j int) int64 { return sat.Add(c.free[int(i)*nr+j], c.used[int(i)*nr+j]) })
}

// rowOf returns node i's quantities as q gives them per column, the Pods column only for a
// node that limits its slots.
func (c *Cluster) rowOf(i int32, q func(j int) int64) Resources {
	r := make(Resources, len(c.res))
	for j, name := range c.res {
		if j == c.slots && c.flags.s[i]&flagSlotted == 0 {
			continue
		}
		r[name] = q(j)
	}
	return r
}

// Clone returns an independent copy: Apply, Remove and the node changes on one do not
// affect the other. The clone of a nil Cluster is nil.
//
// Clone copies the free and used capacity and shares everything else copy on write:
// the structure, and the aggregates and per-shape counts that Place keeps, so that the
// first Place on the clone does not count again what the original has counted.
func (c *Cluster) Clone() *Cluster {
	if c == nil {
		return nil
	}
	return c.CloneInto(&Cluster{})
}

// CloneInto is Clone into the storage of dst, a cluster its caller is done with (a
// clone it made earlier, of this cluster or another): a host that copies a cluster many
// times, as an admission gate's cycles do, saves the allocation of the free and used
// capacity each time. dst is overwritten and returned; a nil dst, or c itself, makes a
// new clone.
func (c *Cluster) CloneInto(dst *Cluster) *Cluster {
	if c == nil {
		return nil
	}
	if dst == nil || dst == c {
		return c.Clone()
	}
	free, used, chg := dst.free, dst.used, dst.chg
	*dst = *c
	dst.free = append(free[:0], c.free...)
	dst.used = append(used[:0], c.used...)
	dst.chg = chg // dst's own scratch: c's must never be shared
	if c.shapes != nil {
		dst.labels, dst.flags = c.labels.share(), c.flags.share()
		dst.agg = c.agg.shareAggregates()
		dst.shapes = c.shapes.clone()
	}
	return dst
}

// Domains returns the domains of the named level in path order, or nil for an unknown
// level. Nodes outside the topology belong to no domain, and a domain whose nodes were
// all removed is none.
func (c *Cluster) Domains(level string) []Domain {
	if c == nil {
		return nil
	}
	li, ok := c.levelIdx[level]
	if !ok {
		return nil
	}
	var out []Domain
	for d := range int32(c.lv[li].count()) {
		if c.live(li, d) {
			out = append(out, c.domain(li, d))
		}
	}
	return out
}

// live reports whether domain (l, d) holds a node that was not removed.
func (c *Cluster) live(l int, d int32) bool {
	for i := c.lv[l].start[d]; i < c.lv[l].start[d+1]; i++ {
		if !c.gone(i) {
			return true
		}
	}
	return false
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
