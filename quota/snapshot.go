package quota

import (
	"slices"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/wire"
	"github.com/poolgate/poolgate/naming"
)

// The ways a snapshot can be refused, for errors.Is. A refused snapshot builds nothing:
// the value UnmarshalBinary was called on is unchanged.
var (
	// ErrForeignSnapshot: the bytes are not a snapshot of this kind of value.
	ErrForeignSnapshot = wire.ErrForeign
	// ErrSnapshotVersion: a snapshot of a format this version of the package does not
	// read.
	ErrSnapshotVersion = wire.ErrVersion
	// ErrCorruptSnapshot: the checksum does not match, the snapshot is truncated, or
	// what it holds breaks a rule of the value.
	ErrCorruptSnapshot = wire.ErrCorrupt
)

const (
	treeMagic    = "poolgate/quota.Tree\x00"
	poolSetMagic = "poolgate/quota.PoolSet\x00"
)

// The versions of a tree's snapshot. Version 2 added the roots' capacities and version
// 3 the flavors with the queues' groups and fungibility; older snapshots, which have
// none, still decode.
const (
	treeVersionNoCapacity = 1
	treeVersionNoFlavors  = 2
	treeVersion           = 3
)

// MarshalBinary encodes the tree — its spec (Tree.Spec) with every node's quotas,
// limits, weight and queue usage and every root's capacities — in poolgate's snapshot
// form: versioned, deterministic (equal trees give equal bytes) and checked on decoding
// by a CRC-32. NodeIDs are not kept: UnmarshalBinary numbers the nodes in tree order.
func (t *Tree) MarshalBinary() ([]byte, error) {
	w := wire.NewWriter(treeMagic, treeVersion)
	t.write(w)
	return w.Finish(), nil
}

// write writes the tree's spec (Tree.Spec) straight from the tree's slices, so that a
// hundred thousand nodes need no maps: the resources, then the nodes depth first, each
// with the place of its parent in the list plus one (0 for a root), its kind, its
// weight, and per resource its nominal quota, its limits (Unlimited for none), for a
// root its capacity (Unlimited for none) and, for a queue, its usage. Only roots carry
// a capacity, so the other nodes spend no bytes on one.
func (t *Tree) write(w *wire.Writer) {
	if t == nil {
		t = &Tree{}
	}
	R := t.numRes()
	w.Uint(uint64(R))
	for _, r := range t.resNames {
		w.String(r)
	}
	w.Uint(uint64(t.live))
	at := make([]int32, len(t.kind)) // slot → place in the list, plus one
	n := int32(0)
	order := make([]int, 0, t.live)
	t.eachDepthFirst(func(i int) {
		n++
		at[i] = n
		order = append(order, i)
		w.String(t.names[i])
		parent := int32(0)
		if p := t.parent[i]; p >= 0 {
			parent = at[p]
		}
		w.Uint(uint64(parent))
		w.Uint(uint64(t.kind[i]))
		w.Int(t.weight[i].Thousandths())
		for j := range R {
			c := &t.cfg[i*R+j]
			w.Int(int64(c.nom))
			w.Int(int64(c.bl))
			w.Int(int64(c.ll))
			if parent == 0 {
				w.Int(int64(c.cap))
			}
			u := Quantity(0)
			if t.kind[i] == KindQueue {
				u = t.usage[i*R+j]
			}
			w.Int(int64(u))
		}
	})
	t.writeFlavors(w, order)
}

// writeFlavors writes the flavors, each with its labels in key order, then for each
// node in the order of slots its groups and fungibility.
func (t *Tree) writeFlavors(w *wire.Writer, slots []int) {
	flavors := t.Flavors()
	writeFlavorList(w, flavors)
	if len(flavors) == 0 {
		return
	}
	for _, i := range slots {
		groups := t.fl.groups[i]
		w.Uint(uint64(len(groups)))
		for _, g := range groups {
			w.Uint(uint64(len(g.Resources)))
			for _, r := range g.Resources {
				w.String(r)
			}
			w.Uint(uint64(len(g.Flavors)))
			for _, f := range g.Flavors {
				w.String(f)
			}
		}
		fg := t.fl.fung[i]
		w.Uint(uint64(fg.WhenCanBorrow))
		w.Uint(uint64(fg.WhenCanPreempt))
		w.Uint(uint64(fg.Preference))
	}
}

// writeFlavorList writes flavors, each with its labels in key order.
func writeFlavorList(w *wire.Writer, flavors []Flavor) {
	w.Uint(uint64(len(flavors)))
	for _, f := range flavors {
		w.String(f.Name)
		keys := keysOf(f.Labels)
		slices.Sort(keys)
		w.Uint(uint64(len(keys)))
		for _, k := range keys {
			w.String(k)
			w.String(f.Labels[k])
		}
	}
}

// readFlavorList reads what writeFlavorList wrote; nil for none.
func readFlavorList(r *wire.Reader) []Flavor {
	flavors := make([]Flavor, r.Len(2))
	if len(flavors) == 0 {
		return nil
	}
	for i := range flavors {
		f := &flavors[i]
		f.Name = r.String()
		if n := r.Len(2); n > 0 {
			f.Labels = make(map[string]string, n)
			for range n {
				k := r.String()
				f.Labels[k] = r.String()
			}
		}
	}
	return flavors
}

// readFlavors reads what writeFlavors wrote into spec, whose nodes are read.
func readFlavors(r *wire.Reader, spec *TreeSpec) {
	spec.Flavors = readFlavorList(r)
	if len(spec.Flavors) == 0 {
		return
	}
	for i := range spec.Nodes {
		n := &spec.Nodes[i]
		if k := r.Len(2); k > 0 {
			n.Groups = make([]ResourceGroup, k)
			for gi := range n.Groups {
				g := &n.Groups[gi]
				g.Resources = make([]string, r.Len(1))
				for j := range g.Resources {
					g.Resources[j] = r.String()
				}
				g.Flavors = make([]string, r.Len(1))
				for j := range g.Flavors {
					g.Flavors[j] = r.String()
				}
			}
		}
		var f [3]uint8
		for i := range f {
			// A value past a byte is no step or preference: refuse it rather than let
			// it wrap to a valid one.
			if v := r.Uint(); v > 255 {
				r.Fail("node " + strconv.Quote(n.Name) + " has fungibility " + strconv.FormatUint(v, 10))
			} else {
				f[i] = uint8(v)
			}
		}
		n.Fungibility = Fungibility{WhenCanBorrow: FlavorStep(f[0]), WhenCanPreempt: FlavorStep(f[1]), Preference: FlavorPreference(f[2])}
		if r.Err() != nil {
			return
		}
	}
}

// UnmarshalBinary replaces t with the tree data encodes. A foreign, newer, corrupt or
// truncated snapshot, or one whose tree breaks a rule, is refused (ErrForeignSnapshot,
// ErrSnapshotVersion, ErrCorruptSnapshot) and t is unchanged.
func (t *Tree) UnmarshalBinary(data []byte) error {
	if t == nil {
		return &TreeError{Op: "decode", Rule: ErrNilTree}
	}
	r, version, err := wire.NewReader(data, treeMagic, treeVersionNoCapacity, treeVersion)
	if err != nil {
		return err
	}
	spec := readTreeSpec(r, version)
	if version >= treeVersion && r.Err() == nil {
		readFlavors(r, &spec)
	}
	if err := r.Done(); err != nil {
		return err
	}
	nt, err := NewTree(spec)
	if err != nil {
		r.Fail("the tree is not valid: " + err.Error())
		return r.Err()
	}
	*t = *nt
	return nil
}

// readTreeSpec reads what Tree.write wrote in the given version; NewTree checks its
// rules.
func readTreeSpec(r *wire.Reader, version uint64) TreeSpec {
	var spec TreeSpec
	spec.Resources = make([]string, r.Len(1))
	for i := range spec.Resources {
		spec.Resources[i] = r.String()
	}
	spec.Nodes = make([]NodeSpec, r.Len(4+4*len(spec.Resources)))
	for i := range spec.Nodes {
		n := &spec.Nodes[i]
		n.Name = r.String()
		p := r.Uint()
		if p > 0 {
			if p > uint64(i) {
				r.Fail("node " + strconv.Quote(n.Name) + " comes before its parent")
				return TreeSpec{}
			}
			n.Parent = spec.Nodes[p-1].Name
		}
		n.Kind = NodeKind(r.Uint())
		weight, err := WeightOfThousandths(r.Int())
		if err != nil && r.Err() == nil {
			r.Fail("node " + strconv.Quote(n.Name) + ": " + err.Error())
		}
		n.Weight = weight
		for _, res := range spec.Resources {
			c := quotaCell{nom: Quantity(r.Int()), bl: Quantity(r.Int()), ll: Quantity(r.Int()), cap: Unlimited}
			if p == 0 && version >= treeVersionNoFlavors {
				c.cap = Quantity(r.Int())
			}
			u := Quantity(r.Int())
			if c.configured() {
				if n.Quotas == nil {
					n.Quotas = map[string]NodeQuota{}
				}
				n.Quotas[res] = c.quota()
			}
			if u != 0 {
				if n.Usage == nil {
					n.Usage = map[string]Quantity{}
				}
				n.Usage[res] = u
			}
		}
		if r.Err() != nil {
			return TreeSpec{}
		}
	}
	return spec
}

// The versions of a pool set's snapshot. Version 2 adds the flavors, with the pools'
// and subpools' quotas of each; a pool set without flavors is still written in version
// 1, which every reader reads.
const (
	poolSetVersionNoFlavors = 1
	poolSetVersion          = 2
)

// MarshalBinary encodes the pool set — pools with their configuration, every subpool
// ever created with its state and quota (the archived history included), the running
// workflows, and with flavors the flavors and every quota per flavor — in poolgate's
// snapshot form (see Tree.MarshalBinary). Ledgers are not written: they are the sums of
// the running workflows.
func (p *PoolSet) MarshalBinary() ([]byte, error) {
	if p == nil {
		p = &PoolSet{}
	}
	version := uint64(poolSetVersionNoFlavors)
	if p.HasFlavors() {
		version = poolSetVersion
	}
	w := wire.NewWriter(poolSetMagic, version)
	w.Uint(uint64(len(p.names)))
	for _, name := range p.names {
		c := p.pools[name].cfg
		w.String(name.String())
		w.Int(int64(c.Quota))
		w.Int(int64(c.Maximum))
		w.Int(c.Weight)
		w.Uint(uint64(c.Status))
	}
	subs := make([]naming.Name, 0, len(p.subs))
	for name := range p.subs {
		subs = append(subs, name)
	}
	slices.SortFunc(subs, naming.Compare)
	w.Uint(uint64(len(subs)))
	for _, name := range subs {
		s := p.subs[name]
		w.String(name.String())
		w.Uint(uint64(s.state))
		w.Int(int64(s.quota))
	}
	runs := make([]Workflow, 0, len(p.runs))
	for _, wf := range p.runs {
		runs = append(runs, wf)
	}
	slices.SortFunc(runs, func(a, b Workflow) int { return strings.Compare(string(a.ID), string(b.ID)) })
	w.Uint(uint64(len(runs)))
	for _, wf := range runs {
		w.String(string(wf.ID))
		w.String(wf.Pool.String())
		w.Int(int64(wf.Priority))
		w.Int(int64(wf.GPUs))
	}
	if p.HasFlavors() {
		p.writeFlavorQuotas(w, subs)
	}
	return w.Finish(), nil
}

// writeFlavorQuotas writes the flavors, then per pool in name order the flavors it offers
// with their quotas and maxima, then per subpool in the order of subs its quota of
// every flavor.
func (p *PoolSet) writeFlavorQuotas(w *wire.Writer, subs []naming.Name) {
	writeFlavorList(w, p.fl.flavors)
	for _, name := range p.names {
		fs := p.pools[name].cfg.Flavors
		w.Uint(uint64(len(fs)))
		for _, f := range fs {
			w.String(f.Flavor)
			w.Int(int64(f.Quota))
			w.Int(int64(f.Maximum))
		}
	}
	for _, name := range subs {
		for _, q := range p.shares[name] {
			w.Int(int64(q))
		}
	}
}

// readFlavorQuotas reads what writeFlavorQuotas wrote into p, whose pools, subpools and
// workflows are read, and checks the rules per flavor: configurations, subpools'
// quotas within their parents' of each flavor and summing to their quotas.
func (p *PoolSet) readFlavorQuotas(r *wire.Reader) {
	flavors := readFlavorList(r)
	if r.Err() != nil {
		return
	}
	set, err := NewPoolSet(flavors...)
	if err != nil || !set.HasFlavors() {
		r.Fail("the flavors are not valid: " + errText(err, "none"))
		return
	}
	p.fl, p.shares = set.fl, make(map[naming.Name][]Quantity, len(p.subs))
	for _, name := range p.names {
		rec := p.pools[name]
		rec.cfg.Flavors = make([]FlavorQuota, r.Len(3))
		for i := range rec.cfg.Flavors {
			rec.cfg.Flavors[i] = FlavorQuota{Flavor: r.String(), Quota: Quantity(r.Int()), Maximum: Quantity(r.Int())}
		}
		if r.Err() != nil {
			return
		}
		if rule, detail := p.checkConfig(rec.cfg); rule != 0 {
			r.Fail("pool " + name.String() + ": " + rule.Error() + " (" + detail + ")")
			return
		}
		p.pools[name] = rec
	}
	subs := make([]naming.Name, 0, len(p.subs))
	for name := range p.subs {
		subs = append(subs, name)
	}
	slices.SortFunc(subs, naming.Compare)
	for _, name := range subs {
		shares := make([]Quantity, len(p.fl.flavors))
		var sum Quantity
		for i := range shares {
			shares[i] = Quantity(r.Int())
			sum = sum.Add(shares[i])
		}
		if r.Err() != nil {
			return
		}
		parent, ok := p.pools[name.Parent()]
		for i, v := range shares {
			_, offered := parent.cfg.FlavorQuota(p.fl.flavors[i].Name)
			if v < 0 || v > 0 && ok && !offered && p.subs[name].state.Live() {
				r.Fail("subpool " + name.String() + " has quota " + v.String() + " of flavor " + strconv.Quote(p.fl.flavors[i].Name))
				return
			}
		}
		if sum != p.subs[name].quota {
			r.Fail("subpool " + name.String() + " has quota " + p.subs[name].quota.String() + " and the sum of its flavors' " + sum.String())
			return
		}
		p.shares[name] = shares
	}
	for _, name := range p.names {
		if rule, detail := p.checkSubpoolsFit(name, p.pools[name].cfg); rule != 0 {
			r.Fail("pool " + name.String() + ": " + rule.Error() + " (" + detail + ")")
			return
		}
	}
}

// errText returns err's text, or none for a nil error.
func errText(err error, none string) string {
	if err == nil {
		return none
	}
	return err.Error()
}

// UnmarshalBinary replaces p with the pool set data encodes, after checking every rule
// that a pool set keeps: names, configurations, subpools under finite pools within
// their quota, workflows in live pools. A foreign, newer, corrupt or truncated
// snapshot, or one that breaks a rule, is refused (ErrForeignSnapshot,
// ErrSnapshotVersion, ErrCorruptSnapshot) and p is unchanged.
func (p *PoolSet) UnmarshalBinary(data []byte) error {
	if p == nil {
		return &PoolError{Op: "decode", Rule: ErrNilPoolSet}
	}
	r, version, err := wire.NewReader(data, poolSetMagic, poolSetVersionNoFlavors, poolSetVersion)
	if err != nil {
		return err
	}
	var q PoolSet
	q.init()
	// parse parses a name; want is "pool", "subpool" or "" for either.
	parse := func(what, s, want string) naming.Name {
		n, err := naming.Parse(s)
		switch {
		case err != nil:
		case want == "pool" && n.IsSubpool():
			err = &PoolError{Op: "decode", Name: n, Rule: ErrNotTopLevel}
		case want == "subpool" && !n.IsSubpool():
			err = &PoolError{Op: "decode", Name: n, Rule: ErrNotSubpool}
		}
		if err != nil {
			r.Fail(what + " " + strconv.Quote(s) + ": " + err.Error())
		}
		return n
	}
	for range r.Len(6) {
		name := parse("pool", r.String(), "pool")
		c := PoolConfig{Quota: Quantity(r.Int()), Maximum: Quantity(r.Int()), Weight: r.Int(), Status: Status(r.Uint())}
		if r.Err() != nil {
			return r.Err()
		}
		if rule, detail := c.check(); rule != 0 {
			r.Fail("pool " + name.String() + ": " + rule.Error() + " (" + detail + ")")
		} else if _, dup := q.pools[name]; dup {
			r.Fail("pool " + name.String() + " appears twice")
		}
		q.pools[name] = poolRec{cfg: c}
		q.names = append(q.names, name)
	}
	for range r.Len(4) {
		name := parse("subpool", r.String(), "subpool")
		s := subRec{state: SubpoolState(r.Uint()), quota: Quantity(r.Int())}
		if r.Err() != nil {
			return r.Err()
		}
		parent, ok := q.pools[name.Parent()]
		switch {
		case s.state != Active && s.state != Deleting && s.state != Archived:
			r.Fail("subpool " + name.String() + " has state " + strconv.Itoa(int(s.state)))
		case s.quota < 0:
			r.Fail("subpool " + name.String() + ": " + ErrNegative.Error())
		case q.subs[name] != subRec{} || slices.Contains(q.kids[name.Root()], name):
			r.Fail("subpool " + name.String() + " appears twice")
		case s.state.Live() && (!ok || parent.cfg.Quota.IsUnlimited()):
			r.Fail("live subpool " + name.String() + " has no pool with a finite quota above it")
		case s.state == Active && parent.allocated.Add(s.quota) > parent.cfg.Quota:
			r.Fail("subpool " + name.String() + ": " + ErrExceedsUnallocated.Error())
		}
		if r.Err() != nil {
			return r.Err()
		}
		if s.state.Live() {
			parent.live++
			parent.allocated += s.effective()
			q.pools[name.Parent()] = parent
		}
		q.subs[name] = s
		q.kids[name.Root()] = append(q.kids[name.Root()], name)
	}
	for range r.Len(4) {
		wf := Workflow{ID: WorkflowID(r.String())}
		pool := r.String()
		wf.Priority, wf.GPUs = Priority(r.Int()), Quantity(r.Int())
		if r.Err() != nil {
			return r.Err()
		}
		wf.Pool = parse("workflow "+strconv.Quote(string(wf.ID))+" in", pool, "")
		l, state, ok := q.ledgerOf(wf.Pool)
		switch {
		case r.Err() != nil:
		case wf.ID == "" || !wf.Priority.IsValid() || wf.GPUs < 0:
			r.Fail("workflow " + strconv.Quote(string(wf.ID)) + ": " + ErrInvalidWorkflow.Error())
		case q.runs[wf.ID] != Workflow{}:
			r.Fail("workflow " + strconv.Quote(string(wf.ID)) + " appears twice")
		case !ok || wf.Pool.IsSubpool() && !state.Live():
			r.Fail("workflow " + strconv.Quote(string(wf.ID)) + " runs in " + wf.Pool.String() + ", which takes no work")
		}
		if r.Err() != nil {
			return r.Err()
		}
		if l, ok = l.add(wf, 1); !ok {
			r.Fail("workflow " + strconv.Quote(string(wf.ID)) + ": " + ErrOverflow.Error())
			return r.Err()
		}
		q.setLedger(wf.Pool, l)
		q.runs[wf.ID] = wf
	}
	if version >= poolSetVersion {
		q.readFlavorQuotas(r)
	}
	if err := r.Done(); err != nil {
		return err
	}
	slices.SortFunc(q.names, naming.Compare)
	*p = q
	return nil
}
