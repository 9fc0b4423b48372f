package gang

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/poolgate/poolgate/internal/sat"
)

// Config is one configuration of pods that satisfies the PodGroup: which leaves get
// how many pods. It is what topology places and admission charges. A Config is the
// caller's: it shares nothing with the Tree.
type Config struct {
	// Counts is the number of pods per leaf (see Tree for leaf numbering); leaves
	// outside the configuration have 0.
	Counts []int64
	// Pods is the sum of Counts.
	Pods int64
	// Resources names the dimensions of Request, in the order of Requests.Resources;
	// nil for MinPods.
	Resources []string
	// Request is the total request of the configuration per resource; nil for MinPods.
	Request []int64
}

// Requests is the request of one pod of each leaf: PerPod[l][r] is what one pod of
// leaf l asks of Resources[r], in the resource's base unit.
type Requests struct {
	// Resources names the resources in comparison order: MinRequest compares
	// configurations on the first resource, then the second, and so on, so put the
	// scarcest (GPUs) first.
	Resources []string
	// PerPod has one vector per leaf, each as long as Resources.
	PerPod [][]int64
}

// Requests builds the dense Requests for this tree from requests keyed by leaf
// SubGroup name and resource name, in the given resource order. Every leaf needs an
// entry (a PodGroup without SubGroups uses the name PodGroupLeaf, ""); resources a leaf does not
// mention are 0. Unknown leaf or resource names, inner SubGroups, duplicate resources
// and negative quantities are errors.
func (t *Tree) Requests(resources []string, byLeaf map[string]map[string]int64) (Requests, error) {
	if err := t.compiled(); err != nil {
		return Requests{}, err
	}
	if err := checkResources(resources); err != nil {
		return Requests{}, err
	}
	col := make(map[string]int, len(resources))
	for r, name := range resources {
		col[name] = r
	}
	req := Requests{Resources: slices.Clone(resources), PerPod: make([][]int64, len(t.leaves))}
	for l, ni := range t.leaves {
		name := t.nodes[ni].name
		shape, ok := byLeaf[name]
		if !ok {
			return Requests{}, &FieldError{Path: "requests[" + name + "]", Message: fmt.Sprintf("leaf SubGroup %q has no request", name), Rule: ErrUnknownLeaf}
		}
		vec := make([]int64, len(resources))
		keys := make([]string, 0, len(shape))
		for res := range shape {
			keys = append(keys, res)
		}
		sort.Strings(keys) // the first error must not depend on map order
		for _, res := range keys {
			r, ok := col[res]
			path := "requests[" + name + "][" + res + "]"
			if !ok {
				return Requests{}, &FieldError{Path: path, Message: fmt.Sprintf("resource %q is not in the resource order", res), Rule: ErrResource}
			}
			if shape[res] < 0 {
				return Requests{}, &FieldError{Path: path, Message: fmt.Sprintf("request must not be negative, got %d", shape[res]), Rule: ErrNegative}
			}
			vec[r] = shape[res]
		}
		req.PerPod[l] = vec
	}
	names := make([]string, 0, len(byLeaf))
	for name := range byLeaf {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		i, ok := t.byName[name]
		if name == PodGroupLeaf && t.nodes[Root].leaf == 0 {
			continue
		}
		if !ok || t.nodes[i].leaf < 0 {
			return Requests{}, &FieldError{Path: "requests[" + name + "]", Message: fmt.Sprintf("no leaf SubGroup named %q", name), Rule: ErrUnknownLeaf}
		}
	}
	return req, nil
}

func checkResources(resources []string) error {
	seen := make(map[string]bool, len(resources))
	for r, name := range resources {
		path := fmt.Sprintf("requests.resources[%d]", r)
		switch {
		case name == "":
			return &FieldError{Path: path, Message: "resource name must not be empty", Rule: ErrResource}
		case seen[name]:
			return &FieldError{Path: path, Message: fmt.Sprintf("duplicate resource %q", name), Rule: ErrResource}
		}
		seen[name] = true
	}
	return nil
}

func (t *Tree) checkRequests(req Requests) error {
	if err := checkResources(req.Resources); err != nil {
		return err
	}
	if len(req.PerPod) != len(t.leaves) {
		return &FieldError{Path: "requests.perPod", Message: fmt.Sprintf("has %d entries, the tree has %d leaves", len(req.PerPod), len(t.leaves)), Rule: ErrLength}
	}
	for l, vec := range req.PerPod {
		if len(vec) != len(req.Resources) {
			return &FieldError{Path: fmt.Sprintf("requests.perPod[%d]", l), Message: fmt.Sprintf("has %d entries, there are %d resources", len(vec), len(req.Resources)), Rule: ErrLength}
		}
		for r, q := range vec {
			if q < 0 {
				return &FieldError{Path: fmt.Sprintf("requests.perPod[%d][%d]", l, r), Message: fmt.Sprintf("request must not be negative, got %d", q), Rule: ErrNegative}
			}
		}
	}
	return nil
}

// MinPods returns the configuration with the fewest pods that satisfies the PodGroup: a
// leaf takes minMember pods; an inner node takes its K children with the fewest pods
// (ties: spec order); the PodGroup's minMember floor, when above that, adds the missing
// pods to the first leaf. MinPods().Pods is the PodGroup's minimum pod count, e.g.
// (1+4)+(1+4) = 10 for decode and prefill, each a leader and four workers.
func (t *Tree) MinPods() Config {
	if t.compiled() != nil {
		return Config{}
	}
	c, _, _ := t.minConfig(Requests{PerPod: make([][]int64, len(t.leaves))})
	return c
}

// MinRequest returns the cheapest configuration that satisfies the PodGroup for the
// given per-pod requests: a leaf takes minMember pods; an inner node takes its K
// children with the smallest total request, compared resource by resource in
// req.Resources order, then by fewer pods, then spec order; the PodGroup's minMember
// floor, when above that, adds the missing pods to the leaf with the cheapest pod
// (ties: the first leaf).
//
// MinRequest and MinPods may choose different children: the cheapest configuration can
// hold more pods than the smallest one, so MinRequest(req).Pods may exceed
// MinPods().Pods. Each child is chosen on its own minimum, as a node takes its K
// cheapest children (see docs/rules.md, Gangs); with a floor this greedy choice is not
// always the global optimum (a child with more, cheaper pods could spare floor pods),
// and MinRequest does not search for it.
//
// Invalid requests are an error, and so is a total that would leave the int64 range.
func (t *Tree) MinRequest(req Requests) (Config, error) {
	if err := t.compiled(); err != nil {
		return Config{}, err
	}
	if err := t.checkRequests(req); err != nil {
		return Config{}, err
	}
	c, _, over := t.minConfig(req)
	if over {
		return Config{}, &FieldError{Path: "requests", Message: "the minimum request exceeds the int64 range", Rule: ErrOverflow}
	}
	c.Resources = slices.Clone(req.Resources)
	return c, nil
}

// minPodsBelowFloor returns the fewest pods the PodGroup's children need, without the
// PodGroup's own floor.
func (t *Tree) minPodsBelowFloor() int64 {
	_, below, _ := t.minConfig(Requests{PerPod: make([][]int64, len(t.leaves))})
	return below
}

// minConfig computes the configuration of MinRequest for checked requests (no
// resources for MinPods). It returns it, the root's pods before the floor, and
// whether some total left the int64 range.
func (t *Tree) minConfig(req Requests) (Config, int64, bool) {
	n, R := len(t.nodes), len(req.Resources)
	vec := make([]int64, n*R)
	pods := make([]int64, n)
	over := make([]bool, n)
	chosen := make([]bool, n)
	v := func(i int32) []int64 { return vec[int(i)*R : int(i)*R+R] }
	cheaper := func(a, b int32) int {
		if over[a] != over[b] {
			if over[a] {
				return 1
			}
			return -1
		}
		if c := slices.Compare(v(a), v(b)); c != 0 {
			return c
		}
		if pods[a] != pods[b] {
			if pods[a] < pods[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	}
	var order []int32
	for i := int32(n - 1); i >= 0; i-- {
		nd := &t.nodes[i]
		if nd.leaf >= 0 {
			pods[i] = nd.min
			for r, q := range req.PerPod[nd.leaf] {
				p, ok := mulChecked(nd.min, q)
				v(i)[r], over[i] = p, over[i] || !ok
			}
			continue
		}
		order = append(order[:0], t.kids[nd.kidLo:nd.kidHi]...)
		slices.SortFunc(order, cheaper)
		for _, c := range order[:nd.k] {
			chosen[c] = true
			pods[i] = sat.Add(pods[i], pods[c])
			over[i] = over[i] || over[c]
			for r := range R {
				s, ok := sat.AddChecked(v(i)[r], v(c)[r])
				v(i)[r], over[i] = s, over[i] || !ok
			}
		}
	}

	cfg := Config{Counts: make([]int64, len(t.leaves))}
	active := make([]bool, n)
	for i := range t.nodes {
		nd := &t.nodes[i]
		active[i] = i == Root || active[nd.parent] && chosen[i]
		if active[i] && nd.leaf >= 0 {
			cfg.Counts[nd.leaf] = nd.min
		}
	}
	below := pods[Root]
	total, isOver := below, over[Root]
	request := slices.Clone(v(Root))
	if extra := t.nodes[Root].min - below; extra > 0 && t.nodes[Root].leaf < 0 {
		cheap := 0
		for l := 1; l < len(t.leaves); l++ {
			if slices.Compare(req.PerPod[l], req.PerPod[cheap]) < 0 {
				cheap = l
			}
		}
		cfg.Counts[cheap] += extra
		total += extra
		for r, q := range req.PerPod[cheap] {
			p, ok := mulChecked(extra, q)
			s, ok2 := sat.AddChecked(request[r], p)
			request[r], isOver = s, isOver || !ok || !ok2
		}
	}
	cfg.Pods = total
	if R > 0 {
		cfg.Request = request
	}
	return cfg, below, isOver
}

// mulChecked returns a·b for a, b ≥ 0, and false when the product would reach
// math.MaxInt64 (which internal/sat reserves for Unlimited) or beyond.
func mulChecked(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo >= math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}
