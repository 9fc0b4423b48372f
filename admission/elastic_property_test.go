package admission

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestPropertyShrinksAreMinimal: on random clusters where elastic gangs have grown, a
// decision that takes elastic pods back takes only elastic pods of running gangs that
// are not its victims, no more than each gang runs, and needs every one of them: with
// its victims evicted and any one pod left running, the work does not fit the tree or
// its placement does not fit the nodes. And the gate is as it was.
func TestPropertyShrinksAreMinimal(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	var shrinks, evictsToo int
	check := func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		var nodes []topology.Node
		var capacity int64
		for i := range 2 + r.Intn(5) {
			gpus := int64(2 + r.Intn(7))
			capacity += gpus
			nodes = append(nodes, topology.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"rack": fmt.Sprintf("r%d", i%2)},
				Free: topology.Resources{"gpu": gpus, "cpu": 64000}})
		}
		c, err := topology.NewCluster([]string{"rack"}, nodes)
		if err != nil {
			return err.Error()
		}
		g, err := NewForPools(poolSet(t, "team:"+fmt.Sprint(capacity/2), "other:"+fmt.Sprint(capacity-capacity/2)), 0, Options{Cluster: c, LeastLostWork: r.Intn(2) == 0})
		if err != nil {
			return err.Error()
		}
		queues := []string{"team", "other"}
		minute := 0
		for k := range 2 + r.Intn(5) {
			var w Workload
			if r.Intn(3) > 0 {
				w = elasticWorkload(t, fmt.Sprintf("e%d", k), queues[r.Intn(2)], quota.Priority(r.Intn(3)-1), int64(1+r.Intn(2)), int64(1+r.Intn(6)), minute)
			} else {
				w = gangWorkload(t, fmt.Sprintf("l%d", k), queues[r.Intn(2)], quota.Low, 1+r.Intn(3), minute)
			}
			if err := g.Submit(w); err != nil {
				return err.Error()
			}
			minute++
			if err := g.Apply(g.Cycle(at(minute))); err != nil {
				return err.Error()
			}
		}
		before := snapshot(g)
		w := gangWorkload(t, "x", queues[r.Intn(2)], quota.Priority(r.Intn(3)-1), 1+r.Intn(4), minute)
		if r.Intn(2) == 0 {
			w = Workload{ID: "x", Queue: w.Queue, Priority: w.Priority, Request: []quota.Quantity{quota.Quantity(1 + r.Intn(4))}, Submitted: at(minute)}
		}
		d, err := g.DecideAt(w, at(minute+30))
		if err != nil {
			return err.Error()
		}
		if snapshot(g) != before {
			return "deciding changed the gate"
		}
		if len(d.Shrinks) == 0 {
			return ""
		}
		shrinks++
		if len(d.Plan) > 0 {
			evictsToo++
		}
		victims := map[WorkloadID]bool{}
		for _, v := range d.Plan {
			victims[v.Workload.ID] = true
		}
		var vs []*record
		for id := range victims {
			rec, _ := g.runningRecord(id)
			vs = append(vs, rec)
		}
		for _, sh := range d.Shrinks {
			if victims[sh.Workload] {
				return fmt.Sprintf("%s is shrunk and evicted", sh.Workload)
			}
			rec, ok := g.runningRecord(sh.Workload)
			if !ok || rec.grown == nil {
				return fmt.Sprintf("%s is shrunk but runs no elastic pods", sh.Workload)
			}
			for _, a := range sh.Pods.Assignments {
				var runs int64
				for _, p := range rec.placement.Assignments {
					if p.Group == a.Group && p.Node == a.Node {
						runs += p.Elastic
					}
				}
				if a.Elastic != a.Pods || a.Pods > runs {
					return fmt.Sprintf("%s: takes %+v, runs %d elastic pods there", sh.Workload, a, runs)
				}
			}
		}
		own, err := g.resolve(w)
		if err != nil {
			return err.Error()
		}
		for k := range d.shrinks {
			s := g.trial(at(minute + 30))
			s.ownBooks()
			s.ownCluster()
			s.take(vs)
			for j, p := range d.shrinks {
				if j != k {
					one := shrinkGang{r: p.r, vec: p.r.el.perPod[p.r.grown.pods[p.i].leaf], feet: podFeet(s.cluster, []podRef{p})}
					one.take(&s)
				}
			}
			if s.fits(&own.ask) && (d.Placement == nil || s.fitsNow(*d.Placement)) {
				return fmt.Sprintf("%s fits with pod %d of %s left running: %s", w.ID, p(d.shrinks[k]), d.shrinks[k].r.w.ID, d.Message())
			}
		}
		return ""
	}
	props.Property("shrinks are elastic pods and 1-minimal", prop.ForAll(check, ggen.Int64()))
	props.TestingRun(t)
	// A decision that both takes pods back and evicts is rare (none in some runs of
	// 300): top up from fixed seeds until one does, so that the check on them is never
	// idle.
	for seed := int64(1); evictsToo == 0 && seed <= 5000; seed++ {
		if msg := check(seed); msg != "" {
			t.Fatalf("seed %d: %s", seed, msg)
		}
	}
	t.Logf("%d decisions took elastic pods back, %d of them evicting work too", shrinks, evictsToo)
	require.Positive(t, shrinks, "no decision took elastic pods back")
	require.Positive(t, evictsToo, "no decision both took pods back and evicted")
}

// p is a pod reference's index, for messages.
func p(x podRef) int { return x.i }
