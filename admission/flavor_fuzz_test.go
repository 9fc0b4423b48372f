package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// FuzzFlavorDecide: arbitrary work on a gate with flavors — requests of any amounts,
// running work naming any flavors, gangs with any node selector — never panics;
// malformed input is an error of this package, and every admission charges only pairs
// of the flavors it chose.
func FuzzFlavorDecide(f *testing.F) {
	f.Add(int64(8), int64(0), "h100", "", "", uint8(0), false)
	f.Add(int64(16), int64(4), "a100", "cpu", "A100", uint8(1), true)
	f.Add(int64(-1), int64(1), "v100", "gpu", "V100", uint8(2), true)
	f.Add(int64(1<<62), int64(1<<62), "", "", "H100", uint8(3), false)
	f.Fuzz(func(t *testing.T, gpus, cpus int64, runFlavor, runRes, model string, prio uint8, gang bool) {
		tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100, a100, {Name: "std"}},
			Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort},
				{Name: "train", Parent: "org", Kind: quota.KindQueue,
					Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}, {Resources: []string{"cpu"}, Flavors: []string{"std"}}},
					Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: 16}, "gpu@a100": {Nominal: 16}, "cpu@std": {Nominal: 64}}}}})
		require.NoError(t, err)
		g, err := New(tr, Options{Cluster: twoModels(t)})
		require.NoError(t, err)
		p := quota.Priority(int(prio%3) - 1)
		// Running work with whatever flavors the input names: refused or recorded.
		run := Workload{ID: "run", Queue: "train", Priority: quota.Low, Request: []quota.Quantity{quota.Quantity(gpus % 64), quota.Quantity(cpus % 64)},
			Flavors: map[string]string{"gpu": runFlavor}}
		if runRes != "" {
			run.Flavors[runRes] = runFlavor
		}
		checkErr(t, g.AddRunning(run, at(1), nil))
		w := Workload{ID: "w", Queue: "train", Priority: p, Request: []quota.Quantity{quota.Quantity(gpus), quota.Quantity(cpus)}, Submitted: at(2)}
		if gang {
			gg, err := tryFlavorGang(1, int(min(max(gpus, 0), 16)), "", model)
			if err != nil {
				return // no gang of this selector: the gang package refuses it
			}
			w.Request, w.Gang = nil, gg
		}
		d, err := g.Decide(w)
		if checkErr(t, err) {
			return
		}
		if !d.Admitted() {
			return
		}
		chosen := map[string]bool{}
		for _, c := range d.Flavors {
			for _, r := range c.Resources {
				chosen[quota.PairName(r, c.Flavor)] = true
			}
		}
		for j, x := range d.Request {
			if x != 0 {
				require.True(t, chosen[g.Tree().ResourceName(quota.ResourceID(j))], "%v charges %s", d.Flavors, g.Tree().ResourceName(quota.ResourceID(j)))
			}
		}
		require.NoError(t, g.Commit(d, at(3)))
	})
}

// checkErr fails on an error that is not an *InputError and reports whether err is one.
func checkErr(t *testing.T, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	var ie *InputError
	require.True(t, errors.As(err, &ie), "%T %v", err, err)
	return true
}
