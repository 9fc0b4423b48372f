package admission

import (
	"maps"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// runningOf returns the caller's copy of a running record. One copy of the request
// serves as both Request and a plain workload's Workload.Request.
func (g *Gate) runningOf(r *record) RunningWorkload { return g.runningIn(r, nil) }

// runningIn is runningOf with the copies of quantities carved out of room when it has
// room for them (quantityRoom), so that a plan's victims share one allocation.
func (g *Gate) runningIn(r *record, room *[]quota.Quantity) RunningWorkload {
	rw := RunningWorkload{Workload: r.w, Queue: g.tree.Name(r.leaf), Request: carve(room, r.vec),
		Admitted: r.admitted, Checkpoint: r.checkpoint(), Evicted: slices.Clone(r.evicted()), Placement: clonePlacement(r.placement),
		Preempted: g.lineage.victim(r.w.ID)}
	switch {
	case r.fl != nil:
		rw.Workload.Request = carve(room, r.w.Request)
		rw.Workload.Flavors = maps.Clone(r.w.Flavors)
	case rw.Workload.Gang == nil:
		rw.Workload.Request = rw.Request
	}
	rw.Elastic = elasticIn(r, room)
	return rw
}

// quantityRoom is how many quantities runningIn copies of r.
func quantityRoom(r *record) int {
	n := len(r.vec)
	if r.fl != nil {
		n += len(r.w.Request)
	}
	if r.grown != nil {
		n += len(r.vec)
	}
	return n
}

// carve returns a copy of v carved out of room (carveOf), or its own when room is nil;
// nil for a nil v, as slices.Clone.
func carve(room *[]quota.Quantity, v []quota.Quantity) []quota.Quantity {
	switch {
	case v == nil:
		return nil
	case room == nil:
		return slices.Clone(v)
	}
	return append(carveOf(room, len(v)), v...)
}

// elasticHeld returns what r's elastic pods hold, nil when it runs none.
func elasticHeld(r *record) []quota.Quantity { return elasticIn(r, nil) }

// elasticIn is elasticHeld carved out of room when it has room for it (carve).
func elasticIn(r *record, room *[]quota.Quantity) []quota.Quantity {
	if r.grown == nil {
		return nil
	}
	v := carve(room, r.vec)
	for j, x := range r.grown.min {
		v[j] -= x
	}
	return v
}

// retired returns the caller's copy of a record that stops running, request copied into
// req when it has room: its placement goes to the caller, since the gate stops holding
// it (requeue and Release drop it), and its request is copied, since a re-queued record
// keeps it.
func (g *Gate) retired(r *record, req []quota.Quantity) RunningWorkload {
	rw := RunningWorkload{Workload: r.w, Queue: g.tree.Name(r.leaf), Admitted: r.admitted, Checkpoint: r.checkpoint(), Evicted: r.evicted(), Placement: r.placement,
		Preempted: g.lineage.victim(r.w.ID)}
	if len(req) >= len(r.vec) {
		rw.Request = req[:len(r.vec):len(r.vec)]
		copy(rw.Request, r.vec)
	} else {
		rw.Request = slices.Clone(r.vec)
	}
	switch {
	case r.fl != nil:
		rw.Workload = r.w.clone()
	case rw.Workload.Gang == nil:
		rw.Workload.Request = rw.Request
	}
	rw.Elastic = elasticHeld(r)
	return rw
}

// resolve checks w and returns the record it would be, with Request not yet copied:
// the caller copies it before keeping the record. It allocates nothing for a workload
// without a gang.
func (g *Gate) resolve(w Workload) (record, error) {
	if !g.usable() {
		return record{}, errUnusable()
	}
	switch {
	case w.ID == "":
		return record{}, inputErr(ErrInvalidValue, "workload.id", "", "must not be empty")
	case !w.Priority.IsValid():
		return record{}, inputErr(ErrInvalidValue, "workload.priority", w.Priority.String(), "must be HIGH, NORMAL or LOW")
	case w.Estimate < 0:
		return record{}, inputErr(ErrInvalidValue, "workload.estimate", w.Estimate.String(), "must not be negative")
	}
	leaf, err := g.leafOf(w.Queue)
	if err != nil {
		return record{}, err
	}
	r := record{w: w, ask: ask{leaf: leaf, guaranteed: w.Priority.Guaranteed(), vec: w.Request}}
	r.w.Flavors = nil
	if g.menu != nil {
		return r, g.resolveFlavored(&r)
	}
	if w.Gang != nil {
		if err := g.resolveGang(&r); err != nil {
			return record{}, err
		}
		return r, nil
	}
	if _, _, err := g.request(&r, g.resources, nil); err != nil {
		return record{}, err
	}
	return r, nil
}

// request returns what r's workload asks for per resource of names — a gang's minimum
// requirement, or its Request as it is — and, for a gang on a gate with a cluster, its
// placement request. A gang's positive request of a resource that names lack goes to
// unknown, which refuses it or lets it through (it then limits placement only).
func (g *Gate) request(r *record, names []string, unknown func(name string) error) ([]quota.Quantity, *topology.Request, error) {
	gg := r.w.Gang
	if gg == nil {
		if len(r.w.Request) != len(names) {
			return nil, nil, inputErr(ErrInvalidValue, "workload.request", string(r.w.ID),
				"has "+strconv.Itoa(len(r.w.Request))+" amounts for "+strconv.Itoa(len(names))+" resources")
		}
		return r.w.Request, nil, checkAmounts(r.w.Request, names)
	}
	switch {
	case len(r.w.Request) > 0:
		return nil, nil, inputErr(ErrInvalidValue, "workload.request", string(r.w.ID), "must be empty for a gang, whose request is its minimum requirement")
	case gg.Tree == nil:
		return nil, nil, inputErr(ErrInvalidValue, "workload.gang.tree", string(r.w.ID), "must be a compiled gang")
	}
	min, err := gg.Tree.MinRequest(gg.Requests)
	if err != nil {
		return nil, nil, inputErr(ErrInvalidValue, "workload.gang", string(r.w.ID), err.Error())
	}
	vec := make([]quota.Quantity, len(names))
	for i, name := range min.Resources {
		if j := slices.Index(names, name); j >= 0 {
			vec[j] = quota.Quantity(min.Request[i])
		} else if min.Request[i] != 0 {
			if err := unknown(name); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := checkAmounts(vec, names); err != nil {
		return nil, nil, err
	}
	if g.live.cluster == nil {
		return vec, nil, nil
	}
	req, err := g.live.cluster.FromGang(gg.Tree, gg.Requests, topology.GangOptions{Name: gg.Name, Exact: true})
	if err != nil {
		return nil, nil, inputErr(ErrInvalidValue, "workload.gang", string(r.w.ID), err.Error())
	}
	return vec, &req, nil
}

// resolveGang sets r's charged vector to the gang's minimum requirement and, on a gate
// with a cluster, its placement request. A resource the tree does not charge but the
// cluster's nodes hold limits placement only.
func (g *Gate) resolveGang(r *record) error {
	vec, place, err := g.request(r, g.resources, func(name string) error {
		if g.live.cluster.Knows(name) {
			return nil
		}
		return g.unknownResource(r.w.ID, name)
	})
	if err != nil {
		return err
	}
	r.vec, r.place = vec, place
	if place != nil {
		r.sig = signature(place)
	}
	return g.resolveElastic(r)
}

// resolveFlavored resolves r, a workload on a gate with flavors: its request per
// asked resource, its placement request unrestricted on a gate with a cluster, and its
// menu. A positive request of a resource no group of its queue covers is refused —
// except on a gate from pools, whose quotas count GPUs only: there, as without flavors,
// a resource the cluster's nodes hold (CPU, memory) limits placement only.
func (g *Gate) resolveFlavored(r *record) error {
	gen, place, err := g.request(r, g.menu.asked, func(name string) error {
		if g.pools != nil && g.live.cluster != nil && g.live.cluster.Knows(name) {
			return nil
		}
		return inputErr(ErrUnknownResource, "workload.gang.requests", name, "is asked for by workload "+strconv.Quote(string(r.w.ID))+" but no queue's resource group covers it")
	})
	if err != nil {
		return err
	}
	if r.w.Gang == nil {
		gen = slices.Clone(gen) // the caller's Request: the menu keeps its own
	}
	fa, err := g.menu.flavored(r.leaf, r.guaranteed, gen, place, len(g.resources))
	if err != nil {
		return err
	}
	if r.w.Gang != nil && slices.ContainsFunc(r.w.Gang.Extra, func(x int64) bool { return x != 0 }) {
		return inputErr(ErrInvalidValue, "workload.gang.extra", string(r.w.ID), "elastic pods are not charged per flavor: a gate with flavors admits gangs at their minimum")
	}
	r.fl, r.ask = fa, fa.base
	return nil
}

// runOn sets r, a workload with a menu of flavors recorded as running, to run on
// flavors (resource → flavor): one flavor its queue lists for each group the workload
// touches, eligible for its pod sets, and nothing else.
func (g *Gate) runOn(r *record, flavors map[string]string) error {
	groups := g.menu.groups[r.leaf-1]
	steps := r.fl.first
	var last *flavorStep
	named := 0
	for _, gi := range r.fl.groups {
		mg := &groups[gi]
		want := ""
		for _, res := range askedOf(mg, r.fl.gen, nil) {
			f, ok := flavors[res]
			switch {
			case !ok:
				return inputErr(ErrInvalidValue, "workload.flavors", res, "names no flavor for a resource the workload runs with")
			case want != "" && f != want:
				return inputErr(ErrInvalidValue, "workload.flavors", res, "names "+strconv.Quote(f)+", but the group's other resources run on "+strconv.Quote(want))
			}
			want = f
			named++
		}
		last = nil
		for i := range steps {
			if mg.flavors[steps[i].flavor].name == want {
				last = &steps[i]
			}
		}
		if last == nil || last.eval == nil {
			return inputErr(ErrInvalidValue, "workload.flavors", want, "is not a flavor queue "+strconv.Quote(g.tree.Name(r.leaf))+" offers the workload")
		}
		steps = last.next
	}
	if named != len(flavors) {
		return inputErr(ErrInvalidValue, "workload.flavors", string(r.w.ID), "names a resource the workload does not ask for")
	}
	if last != nil {
		r.ask = *last.eval
	}
	r.w.Flavors = maps.Clone(flavors)
	return nil
}

// unknownResource refuses a gang of id that asks for the resource name, which the
// gate would neither charge nor place: admitted, it would hold what nothing counts.
func (g *Gate) unknownResource(id WorkloadID, name string) error {
	rule := "is asked for by workload " + strconv.Quote(string(id)) + " but is not one of the resources the gate charges, " + joinNames(g.resources)
	if g.live.cluster != nil {
		rule += ", nor one its cluster's nodes hold"
	}
	return inputErr(ErrUnknownResource, "workload.gang.requests", name, rule)
}
