package topology

// PlaceScan runs Place with every candidate lookup scanning all domains of its level
// instead of using the best-fit index: the baseline of the benchmarks, and a second
// opinion for the property tests.
func PlaceScan(c *Cluster, r Request, o Options) (Result, error) { return c.place(r, o, scanned, nil) }

// PlaceIndexedAll runs Place with every node listing read from the node index, however
// small the domain, so that the tests' small clusters go through the paths that large
// clusters take.
func PlaceIndexedAll(c *Cluster, r Request, o Options) (Result, error) {
	return c.place(r, o, indexedAll, nil)
}

// PlaceCounted runs Place and returns, beside each reason of a NoFit, the leaf groups
// whose pods it counts (nil for a sentence that counts none).
func PlaceCounted(c *Cluster, r Request, o Options) (Result, [][]string, error) {
	var counted [][]string
	res, err := c.place(r, o, indexed, &counted)
	return res, counted, err
}

// fewest is fewestBuf.fewest with a buffer of its own.
func fewest(room []int64, want int64) ([]int, bool) {
	var b fewestBuf
	return b.fewest(room, want)
}
