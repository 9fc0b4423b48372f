package topology

import (
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"

	"github.com/poolgate/poolgate/internal/enum"
)

// DefaultBudget is the search budget used when Options.Budget is zero: enough to decide
// every request whose pods share one shape on clusters of tens of thousands of nodes in
// the common case, and small enough to answer hard mixes within milliseconds.
const DefaultBudget = 100_000

// Options tune one call of Place.
type Options struct {
	// Extras places the leaves' elastic pods too, after the minimum and only where they
	// still fit within the domains chosen for the minimum.
	Extras bool
	// Budget bounds the search in steps (one candidate tried is one step); 0 means
	// DefaultBudget. A search that runs out returns BudgetExhausted.
	Budget int
}

// Outcome is the kind of answer Place gives.
type Outcome int

// The outcomes of Place. The zero Outcome is not one of them.
const (
	// Placed: Result.Placement places the request.
	Placed Outcome = iota + 1
	// NoFit: no placement exists; Result.Reasons explain, per candidate domain.
	NoFit
	// BudgetExhausted: the search stopped at its budget before deciding.
	BudgetExhausted
)

var outcomeText = [...]string{Placed: "placed", NoFit: "no fit", BudgetExhausted: "search budget exhausted"}

// String returns the outcome's name.
func (o Outcome) String() string {
	return enum.Name(outcomeText[:], o, "Outcome")
}

// Result is Place's answer.
type Result struct {
	// Outcome says whether the request was placed.
	Outcome Outcome
	// Placement is the placement when Outcome is Placed.
	Placement Placement
	// Reasons explain an outcome other than Placed.
	Reasons []Reason
	// Steps is the part of the budget the search used.
	Steps int
}

// Place decides whether request r fits the cluster's free capacity, and where. It does not
// change the cluster: commit the placement with Apply. An invalid request is an error; a
// request that does not fit is a Result with Outcome NoFit and reasons.
//
// The placement is sound (every node's capacity holds across all shapes and every
// required constraint holds) and deterministic for equal input. NoFit is only returned
// when the search has ruled out every placement; when it cannot finish within the
// budget the outcome is BudgetExhausted instead.
func (c *Cluster) Place(r Request, o Options) (Result, error) {
	return c.place(r, o, indexed, nil)
}

// place is Place in mode m; counted, when not nil, gets per reason of a NoFit the leaf
// groups it counts.
func (c *Cluster) place(r Request, o Options, m mode, counted *[][]string) (Result, error) {
	if err := c.built(); err != nil {
		return Result{}, err
	}
	if o.Budget < 0 {
		return Result{}, requestErr("options.budget", fmt.Sprint(o.Budget), "must not be negative")
	}
	q, err := c.compile(r)
	if err != nil {
		return Result{}, err
	}
	budget := o.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	s := newSearcher(c, q, budget, m)
	if s.run() {
		if o.Extras {
			s.extras()
		}
		res := Result{Outcome: Placed, Placement: s.placement(), Steps: s.steps}
		s.release()
		return res, nil
	}
	s.release() // before the explanation, whose searches take the scratch again
	if s.exhausted {
		return Result{Outcome: BudgetExhausted, Steps: s.steps, Reasons: []Reason{{
			Scope: q.groups[0].name,
			Text:  fmt.Sprintf("the search budget of %d steps ran out before a placement of %s was found or ruled out", budget, scopeText(q.groups[0].name)),
		}}}, nil
	}
	return Result{Outcome: NoFit, Steps: s.steps, Reasons: c.explain(q, m, counted)}, nil
}

// Fit returns how many pods of the given shape fit in domain d on the current free
// capacity: per node, the minimum over requested resources of floor(free / request),
// and the free pod slots; summed over the domain's nodes. The zero Domain is the whole
// cluster, whose nodes outside the topology take no pods and count 0. A shape that
// requests nothing fits without limit on nodes without slots: the result is then
// Unlimited.
func (c *Cluster) Fit(shape Resources, d Domain) (int64, error) {
	if err := c.built(); err != nil {
		return 0, err
	}
	k, err := c.podKind(shape)
	if err != nil {
		return 0, err
	}
	l, id, err := c.lookup(d)
	if err != nil {
		return 0, err
	}
	var n int64
	lv := &c.lv[l]
	nr := len(c.res)
	for i := lv.start[id]; i < lv.start[id+1]; i++ {
		if c.usable(i) {
			n = sat.Add(n, nodeFit(c.free[int(i)*nr:(int(i)+1)*nr], c.used[int(i)*nr:(int(i)+1)*nr], &k, Unlimited))
		}
	}
	return n, nil
}

// podKind checks shape, the request of one pod, and returns it in column form with one
// slot counted.
func (c *Cluster) podKind(shape Resources) (kind, error) {
	k := kind{vec: make([]int64, len(c.res))}
	for name, v := range shape {
		switch {
		case name == Pods:
			return kind{}, placementErr("shape", fmt.Sprintf("%q", name), "every pod takes one slot; a shape must not list pods")
		case v < 0:
			return kind{}, placementErr(fmt.Sprintf("shape[%q]", name), fmt.Sprint(v), "quantities must not be negative")
		case v == 0:
		default:
			col, ok := c.resIdx[name]
			if !ok {
				k.never = true
				continue
			}
			k.vec[col] = v
		}
	}
	if c.slots >= 0 {
		k.vec[c.slots] = 1
	}
	return k, nil
}

// lookup finds the internal form of an exported domain.
func (c *Cluster) lookup(d Domain) (int, int32, error) {
	if d.IsZero() {
		return 0, 0, nil
	}
	li, ok := c.levelIdx[d.Level]
	if !ok {
		return 0, 0, placementErr("domain.level", fmt.Sprintf("%q", d.Level), "not a level of the topology")
	}
	lv := &c.lv[li]
	id, found := slices.BinarySearchFunc(lv.path, d.Path, func(p []string, t string) int {
		return compareJoined(p, t)
	})
	if !found || !c.live(li, int32(id)) {
		return 0, 0, placementErr("domain", fmt.Sprintf("%q", d.String()), "no such domain")
	}
	return li, int32(id), nil
}
