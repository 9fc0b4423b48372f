package replay

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
)

// TestGPUSpecSelectsModels: a pod that names the GPU models it accepts runs on a node of
// one of them; one without gpu_spec runs anywhere; one naming a model no node has never
// runs, and the replay says so.
func TestGPUSpecSelectsModels(t *testing.T) {
	nodes := mustNodes(t, "t4,8000,8192,2,T4", "v100,8000,8192,2,V100M16")
	// Each pod asks for its own CPU, so that each is a request of a shape of its own, none
	// larger than the one that fits nowhere.
	pods := mustPods(t,
		"on-a100,2000,1024,1,1000,A100,LS,Running,0,100,0",
		"on-v100,1100,1024,1,1000,V100M16|V100M32,LS,Running,0,100,0",
		"on-t4,1200,1024,1,1000,T4,LS,Running,0,100,0",
		"anywhere,1300,1024,2,1000,,Burstable,Running,0,100,0",
	)
	sim, err := New(Config{Squeeze: 1, Clock: stepClock()}, nodes, pods)
	require.NoError(t, err)
	_, err = sim.Step()
	require.NoError(t, err)
	on := map[admission.WorkloadID]string{}
	for _, r := range sim.Gate().Running() {
		require.NotNil(t, r.Placement)
		require.Len(t, r.Placement.Assignments, 1)
		on[r.Workload.ID] = r.Placement.Assignments[0].Node
	}
	assert.Equal(t, map[admission.WorkloadID]string{
		"on-v100#0": "v100",
		"on-t4#0":   "t4",
		// Two GPUs fit neither node beside the others' one: it waits for them.
	}, on)
	require.NoError(t, sim.Run())
	r := sim.Report()
	assert.Equal(t, 3, r.Trace.GPUSpec, "three pods name models")
	require.Len(t, r.Unplaced, 1)
	assert.Equal(t, admission.WorkloadID("on-a100#0"), r.Unplaced[0].ID)
	assert.Contains(t, r.Unplaced[0].Message, "no node of the topology matches the node selector")
	assert.Equal(t, 3, r.Admissions, "anywhere runs once the others finish")
}
