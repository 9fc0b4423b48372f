package topology

import (
	"cmp"
	"fmt"
	"slices"
)

// maxReasons bounds the per-domain reasons given for one constraint: the domains that
// come closest are listed, the rest are counted.
const maxReasons = 8

// Reason explains part of an outcome other than Placed: how much of a constraint's pods
// one candidate domain can host, or a sentence when no single domain is to blame.
type Reason struct {
	// Scope names the group or set whose pods did not fit.
	Scope string
	// Domain is the candidate domain; the zero Domain is the whole cluster.
	Domain Domain
	// Fit is how many of the pods the domain could host on its own; Need is how many
	// there are. Both are zero for a sentence.
	Fit, Need int64
	// Text is the sentence, when the reason is not about one domain.
	Text string
}

// String formats r, e.g. `rack b1/r1 can host 3 of 4 pods of decode-workers`.
func (r Reason) String() string {
	if r.Text != "" {
		return r.Text
	}
	return fmt.Sprintf("%s can host %d of %d pods of %s", r.Domain, r.Fit, r.Need, scopeText(r.Scope))
}

// explain says why q does not fit. It looks at the configuration with the fewest pods
// (each K-of-N group taking its K smallest children, ties in spec order) and reports the
// constraints that no domain can host on its own, each with its candidate domains, closest
// first. When every constraint fits somewhere on its own, the pods only fail together,
// and it says so.
func (c *Cluster) explain(q *compiled, m mode) []Reason {
	s := newSearcher(c, q, 0, m)
	defer s.release()
	s.smallest(0)
	for l, gi := range q.leaves {
		if !s.chosen[gi] {
			continue
		}
		g := &q.groups[gi]
		for ci := range q.cons {
			if q.cons[ci].leaves[l] {
				s.dem[ci][g.kind] += g.pods
				s.total[ci] += g.pods
			}
		}
	}
	var out []Reason
	for ci := range q.cons {
		cc := &q.cons[ci]
		if s.total[ci] == 0 {
			continue
		}
		l := max(cc.req, 0)
		if ci > 0 && cc.req < 0 {
			l = 1
		}
		var all []Reason
		fits := false
		for d := range c.lv[l].count() {
			var fit int64
			for k, n := range s.dem[ci] {
				fit += min(n, s.cn.capacity(int32(k), l, int32(d)))
			}
			fits = fits || fit == s.total[ci]
			all = append(all, Reason{Scope: cc.scope, Domain: c.domain(l, int32(d)), Fit: fit, Need: s.total[ci]})
		}
		if fits {
			continue
		}
		if len(all) == 0 {
			out = append(out, Reason{Scope: cc.scope, Text: fmt.Sprintf("no node is inside the topology, so no domain can host the pods of %s", scopeText(cc.scope))})
			continue
		}
		if l == 1 {
			out = append(out, Reason{Scope: cc.scope, Text: fmt.Sprintf("the nodes inside the topology can host %d of %d pods of %s", all[0].Fit, all[0].Need, scopeText(cc.scope))})
			continue
		}
		slices.SortStableFunc(all, func(a, b Reason) int { return cmp.Compare(b.Fit, a.Fit) })
		if len(all) > maxReasons {
			rest := len(all) - maxReasons
			all = append(all[:maxReasons], Reason{Scope: cc.scope, Text: fmt.Sprintf("%d more %s domains can host fewer", rest, c.levels[l-2])})
		}
		out = append(out, all...)
	}
	if len(out) == 0 {
		out = append(out, Reason{Scope: q.groups[0].name, Text: fmt.Sprintf(
			"every constraint of %s fits some domain on its own, but no choice of groups and domains holds them all together", scopeText(q.groups[0].name))})
	}
	return out
}

// smallest chooses, from group g down, the configuration with the fewest pods.
func (s *searcher) smallest(g int32) int64 {
	s.chosen[g] = true
	grp := &s.q.groups[g]
	if grp.leaf >= 0 {
		return grp.pods
	}
	pods := make([]int64, len(grp.children))
	for i, ch := range grp.children {
		pods[i] = s.minPods(ch)
	}
	order := make([]int, len(grp.children))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pods[a], pods[b]) })
	var n int64
	for _, i := range order[:grp.need] {
		n += s.smallest(grp.children[i])
	}
	return n
}

// minPods returns the fewest pods that satisfy group g.
func (s *searcher) minPods(g int32) int64 {
	grp := &s.q.groups[g]
	if grp.leaf >= 0 {
		return grp.pods
	}
	pods := make([]int64, len(grp.children))
	for i, ch := range grp.children {
		pods[i] = s.minPods(ch)
	}
	slices.Sort(pods)
	var n int64
	for _, p := range pods[:grp.need] {
		n += p
	}
	return n
}
