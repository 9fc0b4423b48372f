package main

import (
	"fmt"
	"strings"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// gpu is the cluster's GPU resource, as its nodes and pods name it.
const gpu = "nvidia.com/gpu"

// job is a submission as the host receives it: a PodGroup of one or more groups of
// pods, how long it runs once started, and whether the host runs it again when it
// is preempted or loses a node.
type job struct {
	id       admission.WorkloadID
	pool     string
	priority quota.Priority
	groups   []group
	// model, when set, is the GPU model every pod needs (the nodes' model label).
	model string
	// rack asks for all the pods in one rack.
	rack bool
	// runtime is how many minutes the job runs once its pods are bound.
	runtime int
	// rerun says that the job waits again when it stops before its end; otherwise the
	// host withdraws it (an interactive notebook, say, whose user has gone).
	rerun bool
	// submitted is the minute the host submitted the job.
	submitted int
}

// group is one group of a job's pods: its name, how many pods, the GPUs of each.
type group struct {
	name       string
	pods, gpus int
}

// gpus is what the job asks in all.
func (j *job) gpus() int {
	n := 0
	for _, g := range j.groups {
		n += g.pods * g.gpus
	}
	return n
}

// perPod returns the GPUs of one pod of the group a placement names.
func (j *job) perPod(name string) (int64, bool) {
	for _, g := range j.groups {
		if g.name == name {
			return int64(g.gpus), true
		}
	}
	return 0, false
}

// submission is the job as the static gate sees it: one task group per group.
func (j *job) submission() admission.Submission {
	s := admission.Submission{Pool: j.pool, Priority: j.priority}
	for _, g := range j.groups {
		s.Groups = append(s.Groups, admission.TaskGroup{Name: g.name, GPUs: int64(g.pods * g.gpus)})
	}
	return s
}

// workload is the job as the gate admits it: a gang compiled from its PodGroup, each
// pod asking its GPUs and two CPUs per GPU, submitted at minute.
func (j *job) workload(minute int) (admission.Workload, error) {
	var spec gang.Spec
	var selector map[string][]string
	if j.model != "" {
		selector = map[string][]string{"model": {j.model}}
	}
	if j.rack {
		spec.TopologyConstraint = &gang.TopologyConstraint{RequiredTopologyLevel: "rack"}
	}
	perPod := map[string]map[string]int64{}
	if len(j.groups) == 1 {
		spec.MinMember, spec.NodeSelector = new(int32(j.groups[0].pods)), selector
		perPod[gang.PodGroupLeaf] = podRequest(j.groups[0])
	} else {
		for _, g := range j.groups {
			spec.SubGroups = append(spec.SubGroups, gang.SubGroup{Name: g.name, MinMember: new(int32(g.pods)), NodeSelector: selector})
			perPod[g.name] = podRequest(g)
		}
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return admission.Workload{}, fmt.Errorf("job %s: %w", j.id, err)
	}
	req, err := tree.Requests([]string{gpu, "cpu"}, perPod)
	if err != nil {
		return admission.Workload{}, fmt.Errorf("job %s: %w", j.id, err)
	}
	// Placements name a PodGroup without SubGroups by the gang's name, and SubGroups by
	// their own.
	name := j.groups[0].name
	if len(j.groups) > 1 {
		name = string(j.id)
	}
	return admission.Workload{ID: j.id, Queue: j.pool, Priority: j.priority, Submitted: clock(minute),
		Gang: &admission.Gang{Tree: tree, Requests: req, Name: name}}, nil
}

func podRequest(g group) map[string]int64 {
	return map[string]int64{gpu: int64(g.gpus), "cpu": int64(2 * g.gpus)}
}

// String describes the job in one line: priority, pool, pods and constraints.
func (j *job) String() string {
	var groups []string
	for _, g := range j.groups {
		groups = append(groups, fmt.Sprintf("%d×%d", g.pods, g.gpus))
	}
	s := fmt.Sprintf("%-6s %-16s %s GPUs", j.priority, j.pool, strings.Join(groups, " + "))
	if j.model != "" {
		s += " on " + j.model
	}
	if j.rack {
		s += " in one rack"
	}
	return s
}

// machine is a node of the host's inventory: rack r1 holds H100s, rack r2 A100s, each
// with 8 GPUs and 64 CPUs.
func machine(name string) topology.Node {
	rack, model := "r1", "H100"
	if strings.HasPrefix(name, "a100") {
		rack, model = "r2", "A100"
	}
	return topology.Node{Name: name, Labels: map[string]string{"rack": rack, "hostname": name, "model": model},
		Free: topology.Resources{gpu: 8, "cpu": 64}}
}
