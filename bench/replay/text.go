package replay

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/bench/internal/numfmt"
)

// WriteText writes the report as a readable block: the set-up, the counts, waits,
// utilization, latencies, violations (counts, then the first described ones) and the
// work left unplaced, ending with a one-line verdict.
func (r Report) WriteText(w io.Writer) error {
	if w == nil {
		return errNilWriter
	}
	var b strings.Builder
	cfg := r.Trace.Config
	fmt.Fprintf(&b, "trace         %s × %s on %s (%s GPUs), arrivals squeezed %s×, cycles ≥ %v apart\n",
		count(r.Trace.Pods, "pod", "pods"), count(cfg.Copies, "copy", "copies"), count(r.Trace.Nodes, "node", "nodes"), milliGPU(r.Trace.Capacity),
		strconv.FormatFloat(cfg.Squeeze, 'g', -1, 64), cfg.Period)
	pools := make([]string, len(r.Trace.Quotas))
	for i, q := range r.Trace.Quotas {
		pools[i] = "pool" + strconv.Itoa(i) + " " + milliGPU(q)
	}
	if fl := r.Trace.Flavors; fl != nil {
		kinds := make([]string, len(fl))
		for i, f := range fl {
			kinds[i] = f.Name + " (no node)"
			if f.Nodes > 0 {
				kinds[i] = f.Name + " (" + strings.Join(f.Models, ", ") + ": " + count(f.Nodes, "node", "nodes") + ", " + milliGPU(f.Capacity) + " GPUs)"
			}
		}
		if cfg.PoolFlavors {
			fmt.Fprintf(&b, "flavors       gpu in %s, by the node label %s, pools with a quota per flavor; cpu and memory placed, not charged\n",
				strings.Join(kinds, " or "), labelClass)
		} else {
			fmt.Fprintf(&b, "flavors       gpu in %s, by the node label %s; cpu and memory in %s, without quota\n",
				strings.Join(kinds, " or "), labelClass, flavorStd)
		}
		for i := range pools {
			var parts []string
			for _, name := range flavorOrder(i) {
				for _, f := range fl {
					if f.Name == name && i < len(f.Quotas) {
						parts = append(parts, milliGPU(f.Quotas[i])+" "+f.Name)
					}
				}
			}
			pools[i] = "pool" + strconv.Itoa(i) + " " + strings.Join(parts, " then ")
		}
		fmt.Fprintf(&b, "pools         %s GPUs of quota, in the order each pool offers its flavors (all in milli-GPU inside the gate)\n", strings.Join(pools, ", "))
	} else {
		fmt.Fprintf(&b, "pools         %s GPUs of quota (all in milli-GPU inside the gate)\n", strings.Join(pools, ", "))
	}
	if r.Trace.GPUSpec > 0 {
		fmt.Fprintf(&b, "note          %s pods name the GPU models they accept (gpu_spec), and run on nodes of those models only\n",
			group(int64(r.Trace.GPUSpec)))
	}
	fmt.Fprintf(&b, "simulated     %s s from the trace's start to the last event\n", seconds1(r.Simulated))
	fmt.Fprintf(&b, "cycles        %s (of %s ticks)\n", group(int64(r.Cycles)), group(int64(r.Ticks)))
	fmt.Fprintf(&b, "workloads     %s submitted, %s admissions, %s preemptions, %s finished, %s running, %s pending, %s inadmissible; at most %s pending after a cycle\n",
		group(int64(r.Submitted)), group(int64(r.Admissions)), group(int64(r.Preemptions)), group(int64(r.Finished)),
		group(int64(r.Running)), group(int64(r.Pending)), group(int64(r.Inadmissible)), group(int64(r.MaxPending)))
	reasons := make([]string, len(r.PendingByReason))
	for i, rc := range r.PendingByReason {
		reasons[i] = rc.Reason.String() + " " + group(int64(rc.Count))
	}
	fmt.Fprintf(&b, "pending       decisions by reason, over all cycles: %s; %s placement searches\n", orNone(strings.Join(reasons, ", ")), group(int64(r.Searches)))
	if x := r.Explained; x.Samples > 0 {
		fmt.Fprintf(&b, "explained     %s pending decisions in %s sampled cycles, by cause: %s\n", group(int64(x.Decisions)), group(int64(x.Samples)), orNone(counts(x.Causes)))
		fmt.Fprintf(&b, "remedies      of %s workloads, one a sample: %s offered (%s), %s failed when tried again\n",
			group(int64(x.Sought)), group(int64(x.Remedies)), orNone(counts(x.Kinds)), group(int64(x.Failed)))
	}
	if r.Preemptions > 0 {
		l := r.Lost
		fmt.Fprintf(&b, "lost work     %.2f GPU-hours, %.3f per preemption; %s of work under 10 min, %s inside its minimum runtime (%s of work preempted before); %s preempted more than once\n",
			l.GPUHours, l.PerPreemption, count(l.Young, "eviction", "evictions"), group(int64(l.InsideMinRuntime)), group(int64(l.RepreemptedInside)), count(l.Repreempted, "workload", "workloads"))
	}
	b.WriteString("waits         submit → admission, simulated seconds:\n")
	for _, wt := range r.Waits {
		if wt.Count == 0 {
			fmt.Fprintf(&b, "  %-6s      no admissions\n", wt.Priority)
			continue
		}
		fmt.Fprintf(&b, "  %-6s      %s: p50 %s, p99 %s, max %s\n", wt.Priority, count(wt.Count, "admission", "admissions"),
			seconds1(wt.P50), seconds1(wt.P99), seconds1(wt.Max))
	}
	if l := r.Largest; l.Count > 0 {
		fmt.Fprintf(&b, "  largest     %s of at least %s GPU: p50 %s, p95 %s, max %s\n", count(l.Count, "admission", "admissions"),
			strconv.FormatFloat(float64(l.AtLeast)/1000, 'f', -1, 64), seconds1(l.P50), seconds1(l.P95), seconds1(l.Max))
	}
	u := r.Utilization
	waiting := "no work waited after a cycle"
	if u.WhilePending > 0 {
		waiting = percent(u.MeanWhilePending) + " over the " + seconds1(u.WhilePending) + " s that work waited"
	}
	fmt.Fprintf(&b, "GPU placed    mean %s of capacity over the replay, %s; max %s\n", percent(u.Mean), waiting, percent(u.Max))
	if r.Cycle.Count > 0 && r.Cycle.Max > 0 {
		b.WriteString("wall time     per call: p50, p90, p99, max (total)\n")
		lines := []struct {
			name string
			l    Latency
		}{{"Gate.CycleInto", r.Cycle}, {"Gate.Apply", r.Apply}, {"checks", r.Check}}
		if cfg.SkipChecks {
			lines = lines[:2] // nothing was checked, so nothing was timed
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "  %-14s  %s, %s, %s, %s (%s)\n", l.name, wall(l.l.P50), wall(l.l.P90), wall(l.l.P99), wall(l.l.Max), wall(l.l.Sum))
		}
		if !cfg.SkipChecks {
			fmt.Fprintf(&b, "  inversion check  %s in all, part of the checks\n", wall(r.Inversion))
		}
		fmt.Fprintf(&b, "  replay          %s in all\n", wall(r.Wall))
	} else {
		b.WriteString("wall time     not measured (no clock)\n")
	}
	counts := make([]string, len(r.Violations))
	for i, v := range r.Violations {
		counts[i] = v.Check.String() + " " + group(int64(v.Count))
	}
	if cfg.SkipChecks {
		counts = []string{"not looked for: the checks were skipped"}
	}
	fmt.Fprintf(&b, "violations    %s\n", strings.Join(counts, ", "))
	if n := r.Violated(CheckInversion); n > 0 {
		fmt.Fprintf(&b, "              the inversions are of %s\n", count(r.InvertedWorkloads, "distinct workload", "distinct workloads"))
	}
	for _, v := range r.Described {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	if len(r.Unplaced) > 0 {
		fmt.Fprintf(&b, "unplaced      %s never run (nothing runs, nothing is left to arrive):\n", count(len(r.Unplaced), "workload can", "workloads can"))
		for _, p := range r.Unplaced {
			fmt.Fprintf(&b, "  %s: %s\n", p.ID, p.Message)
		}
	}
	switch {
	case r.Failed():
		b.WriteString("result        FAILED: see the violations and the unplaced work above\n")
	case cfg.SkipChecks:
		b.WriteString("result        all work ran; nothing was checked\n")
	default:
		b.WriteString("result        ok: every check held after every cycle and all work ran\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// count writes n with the singular or plural noun: 1 copy, 4 copies.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return group(int64(n)) + " " + many
}

// milliGPU writes milli-GPU as GPUs: 6,212 or 3,106.5.
func milliGPU(m int64) string {
	s := group(m / 1000)
	if r := m % 1000; r != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", r), "0")
	}
	return s
}

// seconds1 writes a simulated duration in whole seconds with separators, or with one
// decimal below ten seconds.
func seconds1(d time.Duration) string {
	s := d.Seconds()
	if s < 10 {
		return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64)
	}
	return group(int64(math.Round(s)))
}

// wall writes a wall-time duration with three significant digits: 937 µs, 1.32 s.
func wall(d time.Duration) string {
	v := float64(d)
	for _, u := range []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if v >= u.scale && v/u.scale >= 1000 {
			return group(int64(math.Round(v/u.scale))) + " " + u.name
		}
		if v >= u.scale {
			return strconv.FormatFloat(v/u.scale, 'g', 3, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " ns"
}

// percent writes a fraction as a percentage with one decimal.
func percent(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + " %" }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// group writes v with thousands separators: 12,345.
func group(v int64) string { return numfmt.Group(v) }
