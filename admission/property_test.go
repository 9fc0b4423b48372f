package admission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// scenarioPools builds the pool set of a generated scenario.
func scenarioPools(s gen.AdmissionScenario) (*quota.PoolSet, error) {
	var p quota.PoolSet
	for _, sp := range s.Pools {
		n, err := naming.ParsePool(sp.Name)
		if err != nil {
			return nil, err
		}
		cfg := quota.NewPoolConfig(quota.Quantity(sp.Quota))
		cfg.Maximum = quota.Quantity(sp.Maximum)
		if _, err := p.AddPool(n, cfg); err != nil {
			return nil, err
		}
		for _, sub := range sp.Subpools {
			child, err := n.Subpool(sub.Short)
			if err != nil {
				return nil, err
			}
			if _, err := p.CreateSubpool(child, quota.Quantity(sub.Quota)); err != nil {
				return nil, err
			}
		}
	}
	return &p, nil
}

func scenarioWorkload(w gen.AdmissionWorkload) Workload {
	return Workload{ID: WorkloadID(w.ID), Queue: w.Queue, Priority: quota.Priority(w.Priority),
		Request: []quota.Quantity{quota.Quantity(w.GPUs)}, Submitted: at(w.Minute)}
}

// scenarioGate builds the gate of a generated scenario with its running work.
func scenarioGate(s gen.AdmissionScenario) (*Gate, error) {
	pools, err := scenarioPools(s)
	if err != nil {
		return nil, err
	}
	g, err := NewForPools(pools, quota.Quantity(s.Capacity), Options{})
	if err != nil {
		return nil, err
	}
	for _, w := range s.Running {
		if err := g.AddRunning(scenarioWorkload(w), at(w.Minute), nil); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// fitsWithout reports whether the request fits the gate's tree with the given running
// workloads taken out, checked on a copy of the tree through its own API.
func fitsWithout(g *Gate, d Decision, out []RunningWorkload) (bool, error) {
	t := g.Tree()
	for _, v := range out {
		n, _ := t.Node(v.Queue)
		if err := t.Remove(n, v.Request); err != nil {
			return false, err
		}
	}
	n, _ := t.Node(d.Queue)
	f, err := t.Fits(n, d.Request)
	return f.OK, err
}

// checkPlan returns what is wrong with d's plan, or "".
func checkPlan(g *Gate, d Decision) string {
	if !d.Admitted() {
		return ""
	}
	t := g.Tree()
	gpu := quota.ResourceID(0)
	target, _ := naming.Parse(strings.TrimSuffix(d.Queue, naming.Delimiter+naming.Shared))
	for _, v := range d.Plan {
		if v.Workload.Priority != quota.Low {
			return fmt.Sprintf("victim %s is %s", v.Workload.ID, v.Workload.Priority)
		}
		if v.Queue == d.Queue {
			continue
		}
		leaf, _ := t.Node(v.Queue)
		if !t.Borrowing(leaf, gpu) {
			return fmt.Sprintf("victim %s in %s, which does not borrow", v.Workload.ID, v.Queue)
		}
		if !strings.HasPrefix(v.Queue, target.Root().String()+naming.Delimiter) {
			pool := t.Parent(leaf)
			if !t.Borrowing(pool, gpu) {
				return fmt.Sprintf("victim %s in pool %s, which does not borrow", v.Workload.ID, t.Name(pool))
			}
		}
	}
	ok, err := fitsWithout(g, d, d.Plan)
	if err != nil || !ok {
		return fmt.Sprintf("the request does not fit after the plan (%v)", err)
	}
	for i := range d.Plan {
		ok, err := fitsWithout(g, d, append(d.Plan[:i:i], d.Plan[i+1:]...))
		if err != nil || ok {
			return fmt.Sprintf("the plan without %s still fits (%v)", d.Plan[i].Workload.ID, err)
		}
	}
	return ""
}

// TestPlansAreOneMinimal: every preemption plan names only LOW workloads that the
// candidate rules allow, the request fits after evicting it, and it does not fit when
// any single victim stays.
func TestPlansAreOneMinimal(t *testing.T) {
	plans := 0
	props := gopter.NewProperties(gen.Params(t, 400))
	props.Property("plans are 1-minimal and name LOW work only", prop.ForAll(func(s gen.AdmissionScenario) string {
		g, err := scenarioGate(s)
		if err != nil {
			return err.Error()
		}
		d, err := g.Decide(scenarioWorkload(s.Request))
		if err != nil {
			return err.Error()
		}
		if len(d.Plan) > 0 {
			plans++
		}
		return checkPlan(g, d)
	}, gen.AdmissionScenarios()))
	props.TestingRun(t)
	t.Logf("%d of 400 decisions came with a plan", plans)
	assert.Greater(t, plans, 20, "too few scenarios needed a plan to say much")
}
