package quota

import (
	"strconv"

	"github.com/poolgate/poolgate/internal/gen"
)

// treeModel is a quota tree in the plainest form: a list of nodes with parent indices,
// and every derived value recomputed from scratch, by direct recursion over the
// quota-tree formulas (see doc.go), whenever it is asked for. It is what the property
// tests hold a Tree against. Unlimited stands for an unset limit or capacity.
type treeModel struct {
	R     int
	nodes []treeModelNode
}

type treeModelNode struct {
	name                    string
	parent                  int // -1 for a root
	queue, alive            bool
	nom, bl, ll, cap, usage []Quantity
}

func modelOf(g gen.QuotaTree) treeModel {
	m := treeModel{R: g.Resources}
	for i, n := range g.Nodes {
		mn := treeModelNode{name: "n" + strconv.Itoa(i), parent: n.Parent, queue: n.Queue, alive: true}
		for j := range g.Resources {
			mn.nom = append(mn.nom, Quantity(n.Nominal[j]))
			mn.bl = append(mn.bl, limitQ(n.Borrowing[j]))
			mn.ll = append(mn.ll, limitQ(n.Lending[j]))
			mn.cap = append(mn.cap, limitQ(n.Capacity[j]))
			mn.usage = append(mn.usage, Quantity(n.Usage[j]))
		}
		m.nodes = append(m.nodes, mn)
	}
	return m
}

func limitQ(v int64) Quantity {
	if v == gen.NoLimit {
		return Unlimited
	}
	return Quantity(v)
}

func resName(j int) string { return "r" + strconv.Itoa(j) }

func (m treeModel) spec() TreeSpec {
	s := TreeSpec{}
	for j := range m.R {
		s.Resources = append(s.Resources, resName(j))
	}
	for _, n := range m.nodes {
		if !n.alive {
			continue
		}
		ns := NodeSpec{Name: n.name, Kind: KindCohort, Quotas: map[string]NodeQuota{}, Usage: map[string]Quantity{}}
		if n.queue {
			ns.Kind = KindQueue
		}
		if n.parent >= 0 {
			ns.Parent = m.nodes[n.parent].name
		}
		for j := range m.R {
			ns.Quotas[resName(j)] = NodeQuota{Nominal: n.nom[j], BorrowingLimit: LimitOf(n.bl[j]), LendingLimit: LimitOf(n.ll[j]),
				Capacity: LimitOf(n.cap[j])}
			if n.usage[j] != 0 {
				ns.Usage[resName(j)] = n.usage[j]
			}
		}
		s.Nodes = append(s.Nodes, ns)
	}
	return s
}

func (m treeModel) clone() treeModel {
	c := treeModel{R: m.R, nodes: make([]treeModelNode, len(m.nodes))}
	for i, n := range m.nodes {
		n.nom, n.bl, n.ll, n.cap, n.usage = cloneQ(n.nom), cloneQ(n.bl), cloneQ(n.ll), cloneQ(n.cap), cloneQ(n.usage)
		c.nodes[i] = n
	}
	return c
}

func cloneQ(s []Quantity) []Quantity { return append([]Quantity(nil), s...) }

func (m treeModel) children(i int) []int {
	var out []int
	for k, n := range m.nodes {
		if n.alive && n.parent == i {
			out = append(out, k)
		}
	}
	return out
}

// sq, lq, lend, use, available and potential are the quota-tree formulas verbatim,
// with a root's subtree quota capped by its capacity.
func (m treeModel) sq(i, r int) Quantity {
	s := m.nodes[i].nom[r]
	for _, c := range m.children(i) {
		s = s.Add(m.sq(c, r).Sub(m.lq(c, r)))
	}
	if m.nodes[i].parent < 0 {
		s = min(s, m.nodes[i].cap[r])
	}
	return s
}

func (m treeModel) lq(i, r int) Quantity {
	if m.nodes[i].ll[r] == Unlimited {
		return 0
	}
	return max(0, m.sq(i, r).Sub(m.nodes[i].ll[r]))
}

func (m treeModel) use(i, r int) Quantity {
	if m.nodes[i].queue {
		return m.nodes[i].usage[r]
	}
	var u Quantity
	for _, c := range m.children(i) {
		u += max(0, m.use(c, r).Sub(m.lq(c, r)))
	}
	return u
}

func (m treeModel) availableRaw(i, r int, withUsage bool) Quantity {
	u := Quantity(0)
	if withUsage {
		u = m.use(i, r)
	}
	p := m.nodes[i].parent
	if p < 0 {
		return m.sq(i, r).Sub(u)
	}
	lq := m.lq(i, r)
	parent := m.availableRaw(p, r, withUsage)
	if bl := m.nodes[i].bl[r]; bl != Unlimited {
		parent = min(parent, m.sq(i, r).Sub(lq).Sub(max(0, u.Sub(lq))).Add(bl))
	}
	return max(0, lq.Sub(u)).Add(parent)
}

func (m treeModel) available(i, r int) Quantity { return max(0, m.availableRaw(i, r, true)) }
func (m treeModel) potential(i, r int) Quantity { return max(0, m.availableRaw(i, r, false)) }

// kepT is KEP-79's T(x, r) computed as the KEP writes it: quota − usage for a queue,
// quota + Σ min(lendingLimit, T(child)) for a cohort.
func (m treeModel) kepT(i, r int) Quantity {
	n := m.nodes[i]
	if n.queue {
		return n.nom[r].Sub(n.usage[r])
	}
	t := n.nom[r]
	for _, c := range m.children(i) {
		t = t.Add(min(m.nodes[c].ll[r], m.kepT(c, r)))
	}
	return t
}

// kepBalanced reports KEP-79's rule for resource r: T(x) ≥ −BL(x) at every node, with
// BL 0 at a root and no bound for an unset BL; and at a root with a capacity, the usage
// that reaches it within the capacity.
func (m treeModel) kepBalanced(r int) bool {
	for i, n := range m.nodes {
		if !n.alive {
			continue
		}
		floor := Quantity(0)
		if n.parent < 0 && m.use(i, r) > n.cap[r] {
			return false
		}
		if n.parent >= 0 {
			if n.bl[r] == Unlimited {
				continue
			}
			floor = n.bl[r]
		}
		if m.kepT(i, r) < -floor {
			return false
		}
	}
	return true
}

// allowedAt is, from scratch, what node k on queue q's path allows q to take of r: the
// unused guaranteed quota of the path below and at k, plus k's room (its lendable quota
// less what spills into it, plus its borrowing limit; at a root its subtree quota less
// its usage). available(q) is the minimum of allowedAt over the path.
func (m treeModel) allowedAt(q, k, r int) Quantity {
	var acc Quantity
	for i := q; ; i = m.nodes[i].parent {
		lq, u := m.lq(i, r), m.use(i, r)
		acc = acc.Add(max(0, lq.Sub(u)))
		if i == k {
			n := m.nodes[i]
			if n.parent < 0 {
				return acc.Add(m.sq(i, r).Sub(u))
			}
			room := m.sq(i, r).Sub(lq).Sub(max(0, u.Sub(lq))).Add(n.bl[r])
			if n.bl[r] == Unlimited {
				room = Unlimited
			}
			return acc.Add(room)
		}
	}
}
