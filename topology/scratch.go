package topology

// maxScratch bounds the scratch a Cluster keeps for reuse: one per search running at
// once is enough on the machines a scheduler runs on, and more would only hold memory.
const maxScratch = 2

// scratch is what one search works in: the node assignments it has made and what they
// take of each node, and the buffers of its node lists. A search takes it from its
// Cluster and gives it back, cleared, when it is done, so that a scheduler placing gangs
// over and over does not allocate a per-node array for every call. Nothing in it outlives
// the call: the Placement and Reasons returned are built from it, never share it.
//
// Invariant while unused: usedOff and held are all zeros and the other slices are empty.
type scratch struct {
	usedOff  []int32      // per node: 1 + the offset of its row in usedBuf, 0 while untouched
	usedList []int32      // the nodes with a row in usedBuf, in the order they got it
	usedBuf  []int64      // resources taken by the assignments so far, a row per node
	log      []assignment // node assignments, in the order they were made
	held     [][]int64    // counts.held: per level, the pods reserved per kind and domain
	fb       fewestBuf
	nodes    []int32 // scanNodes' candidates
	fit      []int64
	first    []bool
	// spreadSet's candidate domains and their room, and bucketsFit's domains and demand
	spreadIds  []int32
	spreadRoom []int64
	fitDoms    []levelDomain
	fitNeed    []int64
	// Node lists live until the search ends: they are carved out of these, which grow
	// by whole new arrays so that lists carved earlier stay where they are.
	listNodes []int32
	listFit   []int64
}

// carveNodes returns an empty slice of capacity n that no other list shares.
func (x *scratch) carveNodes(n int) []int32 {
	if cap(x.listNodes)-len(x.listNodes) < n {
		x.listNodes = make([]int32, 0, max(2*cap(x.listNodes), n, 256))
	}
	l := len(x.listNodes)
	x.listNodes = x.listNodes[:l+n]
	return x.listNodes[l : l : l+n]
}

// carveFit is carveNodes for the fits.
func (x *scratch) carveFit(n int) []int64 {
	if cap(x.listFit)-len(x.listFit) < n {
		x.listFit = make([]int64, 0, max(2*cap(x.listFit), n, 256))
	}
	l := len(x.listFit)
	x.listFit = x.listFit[:l+n]
	return x.listFit[l : l : l+n]
}

// takeScratch returns cleared scratch for a search on c.
func (c *Cluster) takeScratch() *scratch {
	sc := c.shapes
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if n := len(sc.spare); n > 0 {
		x := sc.spare[n-1]
		sc.spare = sc.spare[:n-1]
		return x
	}
	return &scratch{usedOff: make([]int32, len(c.names)), held: make([][]int64, len(c.lv))}
}

// release gives the search's scratch back to its Cluster, cleared.
func (s *searcher) release() {
	x := s.scratch
	s.scratch = nil
	for _, i := range x.usedList {
		x.usedOff[i] = 0
	}
	// Reservations only change through buckets, so those left are on their paths.
	for _, b := range s.buckets {
		for l, d := b.l, b.d; l >= 0; l-- {
			if h := s.cn.held[l]; len(h) > 0 {
				clear(h[int(b.k)*s.c.lv[l].count()+int(d):][:1])
			}
			if l > 0 {
				d = s.c.lv[l].parent[d]
			}
		}
	}
	x.held = s.cn.held
	x.usedList, x.usedBuf, x.log = x.usedList[:0], x.usedBuf[:0], x.log[:0]
	x.listNodes, x.listFit = x.listNodes[:0], x.listFit[:0]
	x.fb.r = nil // a lazy list's producer holds the search
	sc := s.c.shapes
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.spare) < maxScratch {
		sc.spare = append(sc.spare, x)
	}
}

// changeScratch is what the changes to a Cluster's free capacity work in: merge's
// entries and sums, and the updater's pending deltas and per-chunk state. A host
// changes a cluster many times between two clones (an admission gate trying preemption
// plans applies and gives back footprints over and over), and allocating these anew for
// every change made much of the garbage such a host leaves.
//
// Only the methods that need exclusive access to their Cluster (Apply, Remove and the
// node changes) use it, so no read touches it. Each Cluster has its own: Clone starts
// without one, CloneInto keeps the one of the cluster it overwrites, and one is made on
// first use. Nothing in it outlives the call that uses it: merge's entries are cleared
// when the change is done, so that they hold no footprint alive.
//
// Invariant while unused: row is all zeros, and all and out are empty.
type changeScratch struct {
	all  []nodeUse // merge's entries of every footprint
	keys []uint64  // merge's sort keys: an entry's node, then its index in all
	out  []nodeUse // merge's sums per node
	sums []int64   // merge's per-node sums, a row of len(res) each
	row  []int32   // mergeDense: per node, 1 + its row in sums; 0 for none
	upd  updater
}

// changes returns c's change scratch, made on first use.
func (c *Cluster) changes() *changeScratch {
	if c.chg == nil {
		c.chg = &changeScratch{}
	}
	return c.chg
}
