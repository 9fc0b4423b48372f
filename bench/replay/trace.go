package replay

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// NodeRow is one row of a node list: a machine with its CPU, memory and GPUs.
type NodeRow struct {
	// SN is the node's serial number, its unique name.
	SN string
	// CPUMilli is its CPU in milli-cores, MemoryMiB its memory in MiB.
	CPUMilli, MemoryMiB int64
	// GPU is its number of GPU devices, Model their model (T4, V100M32, …).
	GPU   int64
	Model string
}

// PodRow is one row of a pod list: a pod's request, class and recorded times.
type PodRow struct {
	// Name is the pod's unique name.
	Name string
	// CPUMilli is its CPU request in milli-cores, MemoryMiB its memory in MiB.
	CPUMilli, MemoryMiB int64
	// NumGPU is the number of GPUs it asks for; GPUMilli, at most 1000, the share of
	// each (below 1000 for a pod that shares one GPU).
	NumGPU, GPUMilli int64
	// GPUSpec lists the GPU models the pod accepts; empty for any.
	GPUSpec []string
	// QoS is its class, which decides its priority.
	QoS QoS
	// Phase is the pod's last phase as recorded (Running, Succeeded, Failed,
	// Pending); the replay carries it and does not use it.
	Phase string
	// CreationTime and DeletionTime are seconds from the trace start.
	CreationTime, DeletionTime int64
	// ScheduledTime is when the production cluster scheduled it, when Scheduled.
	ScheduledTime int64
	// Scheduled is false for pods the production cluster never scheduled.
	Scheduled bool
}

// QoS is a pod's quality-of-service class in the trace.
type QoS string

// The QoS classes of the trace.
const (
	QoSLS         QoS = "LS" // latency sensitive
	QoSGuaranteed QoS = "Guaranteed"
	QoSBurstable  QoS = "Burstable"
	QoSBE         QoS = "BE" // best effort
)

// The columns of each list, in the order WriteNodes and WritePods write them.
var (
	nodeColumns = []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}
	podColumns  = []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
		"pod_phase", "creation_time", "deletion_time", "scheduled_time"}
)

// ParseNodes reads a node list: a CSV table whose header names at least the columns
// sn, cpu_milli, memory_mib, gpu and model, in any order (other columns are
// ignored). Every quantity is a non-negative integer below math.MaxInt64, which the
// gate reads as unlimited (topology.Unlimited), sn is unique and not empty, and no
// text holds control characters. The first broken rule is returned as a
// *ParseError naming the row, the column and the rule.
func ParseNodes(r io.Reader) ([]NodeRow, error) {
	t, err := newTable(r, nodeColumns)
	if err != nil {
		return nil, err
	}
	var out []NodeRow
	seen := map[string]int{}
	for {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		var n NodeRow
		if n.SN, err = t.text("sn", false); err != nil {
			return nil, err
		}
		if first, dup := seen[n.SN]; dup {
			return nil, t.fail("sn", "is the name of row "+strconv.Itoa(first)+" too", ErrDuplicateName)
		}
		seen[n.SN] = t.row
		for _, f := range []struct {
			col string
			dst *int64
		}{{"cpu_milli", &n.CPUMilli}, {"memory_mib", &n.MemoryMiB}, {"gpu", &n.GPU}} {
			if *f.dst, err = t.amount(f.col); err != nil {
				return nil, err
			}
		}
		if n.Model, err = t.text("model", true); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}

// ParsePods reads a pod list: a CSV table whose header names at least the columns
// name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase,
// creation_time, deletion_time and scheduled_time, in any order (other columns are
// ignored). The rules: quantities and times are non-negative integers, and the
// quantities (cpu_milli, memory_mib, num_gpu, gpu_milli) below math.MaxInt64, which
// the gate reads as unlimited (topology.Unlimited); gpu_milli is at most 1000 (a share
// of one GPU); gpu_spec is empty or models separated by '|', none empty; qos is LS,
// Guaranteed, Burstable or BE; scheduled_time is empty (never scheduled) or lies
// between creation_time and deletion_time, and deletion_time is not before
// creation_time; names are unique and not empty; no text holds control characters. The first broken rule is returned as a *ParseError naming the row, the
// column and the rule.
func ParsePods(r io.Reader) ([]PodRow, error) {
	t, err := newTable(r, podColumns)
	if err != nil {
		return nil, err
	}
	var out []PodRow
	seen := map[string]int{}
	for {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		p, err := podOf(t)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[p.Name]; dup {
			return nil, t.fail("name", "is the name of row "+strconv.Itoa(first)+" too", ErrDuplicateName)
		}
		seen[p.Name] = t.row
		out = append(out, p)
	}
}

// podOf reads the table's current record as a pod.
func podOf(t *table) (PodRow, error) {
	var p PodRow
	var err error
	if p.Name, err = t.text("name", false); err != nil {
		return p, err
	}
	for _, f := range []struct {
		col string
		dst *int64
	}{{"cpu_milli", &p.CPUMilli}, {"memory_mib", &p.MemoryMiB}, {"num_gpu", &p.NumGPU}, {"gpu_milli", &p.GPUMilli}} {
		if *f.dst, err = t.amount(f.col); err != nil {
			return p, err
		}
	}
	// Times are seconds, which the gate never reads as a quantity: they need not stay
	// below Unlimited.
	for _, f := range []struct {
		col string
		dst *int64
	}{{"creation_time", &p.CreationTime}, {"deletion_time", &p.DeletionTime}} {
		if *f.dst, err = t.quantity(f.col); err != nil {
			return p, err
		}
	}
	if p.GPUMilli > 1000 {
		return p, t.fail("gpu_milli", "must be at most 1000, a share of one GPU", ErrInvalidValue)
	}
	spec, err := t.text("gpu_spec", true)
	if err != nil {
		return p, err
	}
	if spec != "" {
		p.GPUSpec = strings.Split(spec, "|")
		for _, m := range p.GPUSpec {
			if m == "" {
				return p, t.fail("gpu_spec", "must list GPU models separated by '|', none empty", ErrInvalidValue)
			}
		}
	}
	switch q := QoS(t.field("qos")); q {
	case QoSLS, QoSGuaranteed, QoSBurstable, QoSBE:
		p.QoS = q
	default:
		return p, t.fail("qos", "must be LS, Guaranteed, Burstable or BE", ErrInvalidValue)
	}
	if p.Phase, err = t.text("pod_phase", true); err != nil {
		return p, err
	}
	if p.DeletionTime < p.CreationTime {
		return p, t.fail("deletion_time", "must not be before creation_time "+strconv.FormatInt(p.CreationTime, 10), ErrTimeOrder)
	}
	if t.field("scheduled_time") == "" {
		return p, nil
	}
	if p.ScheduledTime, err = t.quantity("scheduled_time"); err != nil {
		return p, err
	}
	p.Scheduled = true
	if p.ScheduledTime < p.CreationTime || p.ScheduledTime > p.DeletionTime {
		return p, t.fail("scheduled_time", "must lie between creation_time "+strconv.FormatInt(p.CreationTime, 10)+
			" and deletion_time "+strconv.FormatInt(p.DeletionTime, 10), ErrTimeOrder)
	}
	return p, nil
}

// WriteNodes writes rows as a node list that ParseNodes reads back: the header, then
// one record per row.
func WriteNodes(w io.Writer, rows []NodeRow) error {
	if w == nil {
		return errNilWriter
	}
	cw := csv.NewWriter(w)
	cw.Write(nodeColumns)
	for _, n := range rows {
		cw.Write([]string{n.SN, itoa(n.CPUMilli), itoa(n.MemoryMiB), itoa(n.GPU), n.Model})
	}
	cw.Flush()
	return cw.Error()
}

// WritePods writes rows as a pod list that ParsePods reads back: the header, then one
// record per row, scheduled_time empty for pods never scheduled.
func WritePods(w io.Writer, rows []PodRow) error {
	if w == nil {
		return errNilWriter
	}
	cw := csv.NewWriter(w)
	cw.Write(podColumns)
	for _, p := range rows {
		sched := ""
		if p.Scheduled {
			sched = itoa(p.ScheduledTime)
		}
		cw.Write([]string{p.Name, itoa(p.CPUMilli), itoa(p.MemoryMiB), itoa(p.NumGPU), itoa(p.GPUMilli),
			strings.Join(p.GPUSpec, "|"), string(p.QoS), p.Phase, itoa(p.CreationTime), itoa(p.DeletionTime), sched})
	}
	cw.Flush()
	return cw.Error()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
