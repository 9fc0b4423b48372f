package replay

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The cluster's topology levels and resources. GPUs are counted in milli-GPU, in the
// cluster and in the gate alike.
const (
	levelModel    = "model"
	levelHostname = "hostname"
	resGPU        = admission.GPU
	resCPU        = "cpu"
	resMemory     = "memory"
)

// podResources is the order of a pod's requests: GPUs first, the scarcest, as
// gang.Requests wants it.
var podResources = []string{resGPU, resCPU, resMemory}

// clusterOf builds the topology of the node list, model above hostname, and returns
// it with its capacity in milli-GPU and every node's labels; classes labels every node
// with the GPU class of its model too (flavors mode).
func clusterOf(nodes []NodeRow, classes bool) (*topology.Cluster, int64, []map[string]string, error) {
	tn := make([]topology.Node, len(nodes))
	labels := make([]map[string]string, len(nodes))
	var capacity int64
	for i, n := range nodes {
		gpu, ok := mul(n.GPU, 1000)
		if !ok || capacity > math.MaxInt64/2-gpu {
			return nil, 0, nil, &ConfigError{Field: "nodes", Value: n.SN, Rule: "GPU capacity is out of range"}
		}
		capacity += gpu
		labels[i] = map[string]string{levelModel: n.Model, levelHostname: n.SN}
		if classes {
			labels[i][labelClass] = classOf(n.Model)
		}
		tn[i] = topology.Node{Name: n.SN, Labels: maps.Clone(labels[i]), Free: nodeCapacity(n)}
	}
	c, err := topology.NewCluster([]string{levelModel, levelHostname}, tn)
	if err != nil {
		return nil, 0, nil, &ConfigError{Field: "nodes", Value: strconv.Itoa(len(nodes)) + " nodes", Rule: "do not make a cluster", Err: err}
	}
	return c, capacity, labels, nil
}

// nodeCapacity is what a node offers: its GPUs in milli-GPU, its CPU and memory.
func nodeCapacity(n NodeRow) topology.Resources {
	return topology.Resources{resGPU: n.GPU * 1000, resCPU: n.CPUMilli, resMemory: n.MemoryMiB}
}

// gpuRequest is a pod's GPU request in milli-GPU: its share of one GPU when it shares
// one, else its whole GPUs.
func gpuRequest(p PodRow) (int64, bool) {
	if p.NumGPU == 1 && p.GPUMilli > 0 && p.GPUMilli < 1000 {
		return p.GPUMilli, true
	}
	return mul(p.NumGPU, 1000)
}

// mul multiplies without overflow, reporting false when the product leaves int64.
func mul(a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// priorityOf maps a QoS class to the gate's priorities: latency-sensitive and
// guaranteed pods are HIGH, burstable ones NORMAL, best-effort ones LOW.
func priorityOf(q QoS) quota.Priority {
	switch q {
	case QoSLS, QoSGuaranteed:
		return quota.High
	case QoSBurstable:
		return quota.Normal
	}
	return quota.Low
}

// Lifetime is how long the pod runs once admitted, as recorded: from its scheduling to
// its deletion, or from its creation for a pod never scheduled. The replay runs it for
// that long, and a host that forecasts the replay's queue with exact estimates uses it.
func (p PodRow) Lifetime() time.Duration {
	start := p.CreationTime
	if p.Scheduled {
		start = p.ScheduledTime
	}
	return seconds(float64(p.DeletionTime - start))
}

// WorkloadID is the ID the replay submits the copy-th copy (from 0) of the pod named
// pod under.
func WorkloadID(pod string, copy int) admission.WorkloadID {
	return admission.WorkloadID(pod + "#" + strconv.Itoa(copy))
}

// seconds converts simulated seconds to a Duration, saturating far beyond any trace.
func seconds(s float64) time.Duration {
	if d := s * float64(time.Second); d < math.MaxInt64/2 {
		return time.Duration(math.Round(d))
	}
	return math.MaxInt64 / 2
}

// shape is a pod's request: what its one-pod gang asks of each of podResources.
type shape struct{ gpu, cpu, memory int64 }

// shapeOf returns a pod's shape, or false when its GPU request is out of range.
func shapeOf(p PodRow) (shape, bool) {
	g, ok := gpuRequest(p)
	return shape{g, p.CPUMilli, p.MemoryMiB}, ok
}

// oneReplica compiles the PodGroup a pod becomes: one pod, no SubGroups and, for a pod
// that names the GPU models it accepts (gpu_spec), a node selector on the node label
// model with those models, so that it runs on no other.
func oneReplica(models []string) (*gang.Tree, error) {
	one := int32(1)
	spec := gang.Spec{MinMember: &one}
	if len(models) > 0 {
		spec.NodeSelector = map[string][]string{levelModel: slices.Clone(models)}
	}
	return gang.Compile(spec)
}

// requestsOf builds the gang request of one pod of the shape, zero amounts left out.
// A PodGroup without SubGroups has one leaf, named "".
func requestsOf(t *gang.Tree, s shape) (gang.Requests, error) {
	perPod := map[string]int64{}
	for _, r := range []struct {
		name string
		v    int64
	}{{resGPU, s.gpu}, {resCPU, s.cpu}, {resMemory, s.memory}} {
		if r.v != 0 {
			perPod[r.name] = r.v
		}
	}
	return t.Requests(podResources, map[string]map[string]int64{"": perPod})
}

// poolsOf builds the pool set: pool0, pool1, … with the given quotas in milli-GPU.
func poolsOf(quotas []int64) (*quota.PoolSet, []naming.Name, error) {
	var ps quota.PoolSet
	names := make([]naming.Name, len(quotas))
	for i, q := range quotas {
		name, err := naming.ParsePool("pool" + strconv.Itoa(i))
		if err == nil {
			names[i] = name
			_, err = ps.AddPool(name, quota.NewPoolConfig(quota.Quantity(q)))
		}
		if err != nil {
			return nil, nil, &ConfigError{Field: "quota", Value: strconv.FormatInt(q, 10), Rule: "does not make pool" + strconv.Itoa(i), Err: err}
		}
	}
	return &ps, names, nil
}
