// Command replay replays a production GPU trace through poolgate's admission gate and
// prints what it measured: cycles, admissions, preemptions, waits per priority, GPU
// utilization, cycle latency and every invariant violation found after a cycle. It
// exits 1 when a check failed or work was left that could never run, 2 on bad input.
//
// With no flags it replays the embedded Alibaba GPU trace (openb_pod_list_gpushare40
// on openb_node_list_gpu_node) once, its arrivals 1000 times faster, into two pools:
//
//	go run ./bench/replay/cmd/replay
//	go run ./bench/replay/cmd/replay -copies 4 -svg bench/replay-gpushare40-4x.svg
//	go run ./bench/replay/cmd/replay -trace gpushare40_models -copies 4 -flavors
//	go run ./bench/replay/cmd/replay -pods my_pods.csv -nodes my_nodes.csv -pools 3 -quota 0.5,0.3,0.2
//	go run ./bench/replay/cmd/replay -copies 3 -whatif-base fair=on -whatif weight.pool1=3
//
// With -whatif it replays the trace twice, as the other flags (and -whatif-base) set it
// up and again under the change, and prints the two side by side per pool (package
// bench/replay/whatif, whose documentation lists the settings a change may make).
//
// See bench/README.md, "Replaying a production trace", for what is checked and how to
// read the figures.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
	"github.com/poolgate/poolgate/bench/replay/whatif"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command, with its arguments and output streams as parameters.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		trace     = fs.String("trace", "gpushare40", "embedded pod list to replay when -pods is not given: "+strings.Join(replay.TraceNames(), " or "))
		podsPath  = fs.String("pods", "", "pod list CSV (default: the embedded -trace)")
		nodePath  = fs.String("nodes", "", "node list CSV (default: the embedded openb_node_list_gpu_node.csv)")
		copies    = fs.Int("copies", 1, "submit the trace this many times at once")
		squeeze   = fs.Float64("squeeze", 1000, "divide arrival times by this factor (lifetimes are not squeezed)")
		pools     = fs.Int("pools", 2, "number of pools, pool0 … pool{n-1}; pod i goes to pool i mod n")
		quotas    = fs.String("quota", "", "comma-separated quota fractions of the GPU capacity, one per pool (default: an equal split of it all)")
		period    = fs.Duration("period", time.Second, "least simulated time between two cycles")
		maxViol   = fs.Int("max-violations", 20, "violations described per check (all are counted)")
		svg       = fs.String("svg", "", "write the chart of pending depth, cycle latency and GPU use to this file")
		progress  = fs.Duration("progress", 0, "print a progress line to stderr this often in wall time (0: never)")
		flavors   = fs.Bool("flavors", false, "label nodes with their GPU class and let the gate choose one of two GPU flavors per pod, from a quota tree, instead of a pool set")
		poolFl    = fs.Bool("pool-flavors", false, "as -flavors, but the gate is built from pools with a quota per GPU class (a pool set with flavors)")
		explainN  = fs.Int("explain-every", 0, "explain every pending decision of every n-th cycle and try the first one's remedies again (0: never)")
		leastLost = fs.Bool("least-lost-work", false, "plans lose the least work (GPUs × time since the last checkpoint) instead of following the eviction order")
		ckpt      = fs.Duration("checkpoint", 0, "running work checkpoints every this much of runtime (0: never); lost work counts from the last one")
		minRun    = fs.Duration("min-runtime", 0, "every queue's minimum runtime of LOW work before a plan may evict it, for preemption and reclaim alike")
		minPre    = fs.Duration("min-runtime-preempt", -1, "as -min-runtime, for preemption by work of the same queue only (overrides -min-runtime there)")
		minRec    = fs.Duration("min-runtime-reclaim", -1, "as -min-runtime, for reclaim by work of another queue only (overrides -min-runtime there)")
		patience  = fs.Duration("patience", 0, "with a minimum runtime: HIGH/NORMAL work that has waited this long since its submission may evict LOW work inside its minimum runtime (0: never)")
		reserve   = fs.Duration("reserve", 0, "a gang that has waited this long reserves room, and work runs for its recorded lifetime by its estimate (0: no reservations)")
		noChecks  = fs.Bool("no-checks", false, "skip the checks after each cycle, to time the gate alone (nothing is then verified)")
		cpuProf   = fs.String("cpuprofile", "", "write a CPU profile of the replay to this file (go tool pprof reads it)")
		memProf   = fs.String("memprofile", "", "write a profile of what the replay allocated, and where, to this file at its end (go tool pprof -sample_index=alloc_space reads it)")
		whatIf    = fs.String("whatif", "", "replay twice, as set up and under this change, and print both side by side per pool, e.g. 'fair=on,weight.pool1=3' (settings: "+
			"pools, quota=a:b:…, fair, weight.<pool>, strategy, strategy.<pool>, least-lost-work, min-runtime, patience, checkpoint, period)")
		whatBase = fs.String("whatif-base", "", "with -whatif: settings of the base run beyond the other flags, in the same syntax, e.g. 'fair=on'")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "replay: unexpected arguments %q\n", fs.Args())
		return 2
	}
	// Config reads zero as "the default"; on the command line a zero is a mistake.
	switch {
	case *copies < 1, *pools < 1, !(*squeeze > 0), *period <= 0:
		fmt.Fprintln(stderr, "replay: -copies, -pools, -squeeze and -period must be positive")
		return 2
	}
	if *whatBase != "" && *whatIf == "" {
		fmt.Fprintln(stderr, "replay: -whatif-base needs -whatif")
		return 2
	}
	if *whatIf != "" && (*noChecks || *svg != "" || *progress != 0) {
		fmt.Fprintln(stderr, "replay: -whatif keeps every check and draws no chart: -no-checks, -svg and -progress do not apply")
		return 2
	}
	nodes, pods, name, err := load(*trace, *podsPath, *nodePath)
	if err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 2
	}
	var fractions []float64
	if *quotas != "" {
		for _, f := range strings.Split(*quotas, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				fmt.Fprintf(stderr, "replay: -quota %q: %q is not a number\n", *quotas, f)
				return 2
			}
			fractions = append(fractions, v)
		}
	}
	if *cpuProf != "" {
		stop, err := profile(*cpuProf)
		if err != nil {
			fmt.Fprintln(stderr, "replay:", err)
			return 2
		}
		defer stop()
	}
	if *memProf != "" {
		defer func() {
			if err := writeHeapProfile(*memProf); err != nil {
				fmt.Fprintln(stderr, "replay:", err)
			}
		}()
	}
	start := time.Now()
	clock := func() time.Duration { return time.Since(start) }
	cfg := replay.Config{Pools: *pools, Quota: fractions, Squeeze: *squeeze, Copies: *copies,
		Period: *period, Clock: clock, MaxViolations: *maxViol, Flavors: *flavors, PoolFlavors: *poolFl, SkipChecks: *noChecks, ExplainEvery: *explainN,
		LeastLostWork: *leastLost, Checkpoint: *ckpt, MinRuntime: minRuntimeOf(*minRun, *minPre, *minRec, *patience), Reserve: *reserve}
	if *whatIf != "" {
		return whatIfRun(cfg, *whatBase, *whatIf, nodes, pods, name, stdout, stderr)
	}
	sim, err := replay.New(cfg, nodes, pods)
	if err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 2
	}
	fmt.Fprintf(stdout, "replaying %s\n", name)
	next := *progress
	for {
		more, err := sim.Step()
		if err != nil {
			fmt.Fprintln(stderr, "replay:", err)
			return 2
		}
		if *progress > 0 && clock() >= next {
			next = clock() + *progress
			fmt.Fprintf(stderr, "replay: %v wall, simulated %v, %d pending, %d running\n",
				clock().Round(time.Second), sim.Now().Sub(replay.TraceStart()).Round(time.Second), sim.Pending(), sim.Running())
		}
		if !more {
			break
		}
	}
	rep := sim.Report()
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 2
	}
	if *svg != "" {
		if err := writeFile(*svg, rep.WriteSVG); err != nil {
			fmt.Fprintln(stderr, "replay:", err)
			return 2
		}
		fmt.Fprintf(stdout, "chart         %s\n", *svg)
	}
	if rep.Failed() {
		return 1
	}
	return 0
}

// whatIfRun replays the trace under the base scenario — cfg with the settings of
// baseText — and under change, and prints the comparison: 0 when both runs held every
// check and ran all work, 1 when not, 2 on a change or set-up refused.
func whatIfRun(cfg replay.Config, baseText, changeText string, nodes []replay.NodeRow, pods []replay.PodRow, name string, stdout, stderr io.Writer) int {
	settings, err := whatif.ParseChange(baseText)
	if err != nil {
		fmt.Fprintln(stderr, "replay: -whatif-base:", err)
		return 2
	}
	change, err := whatif.ParseChange(changeText)
	if err != nil {
		fmt.Fprintln(stderr, "replay: -whatif:", err)
		return 2
	}
	base, err := settings.Apply(whatif.Scenario{Config: cfg})
	if err != nil {
		fmt.Fprintln(stderr, "replay: -whatif-base:", err)
		return 2
	}
	fmt.Fprintf(stdout, "replaying %s twice\n", name)
	cmp, err := whatif.Compare(base, change, nodes, pods)
	if err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 2
	}
	if err := cmp.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 2
	}
	fmt.Fprintf(stdout, "wall time     base %v, changed %v\n", cmp.Base.Report.Wall.Round(time.Millisecond), cmp.Changed.Report.Wall.Round(time.Millisecond))
	if cmp.Failed() {
		return 1
	}
	return 0
}

// load reads the node and pod lists from the files given, or from the embedded trace.
func load(trace, podsPath, nodePath string) ([]replay.NodeRow, []replay.PodRow, string, error) {
	var nodes []replay.NodeRow
	var pods []replay.PodRow
	name := "openb_pod_list_" + trace + ".csv (embedded)"
	var err error
	if podsPath == "" {
		var t replay.Trace
		if t, err = replay.LoadTrace(trace); err != nil {
			return nil, nil, "", err
		}
		nodes, pods = t.Nodes, t.Pods
	} else {
		name = podsPath
		if err = readFile(podsPath, func(r io.Reader) (err error) { pods, err = replay.ParsePods(r); return err }); err != nil {
			return nil, nil, "", err
		}
	}
	if nodePath == "" {
		if nodes == nil {
			if nodes, err = replay.LoadNodes(); err != nil {
				return nil, nil, "", err
			}
		}
		name += " on openb_node_list_gpu_node.csv (embedded)"
	} else {
		name += " on " + nodePath
		if err = readFile(nodePath, func(r io.Reader) (err error) { nodes, err = replay.ParseNodes(r); return err }); err != nil {
			return nil, nil, "", err
		}
	}
	return nodes, pods, name, nil
}

// readFile opens path and hands it to parse, naming the file in any error.
func readFile(path string, parse func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := parse(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeFile creates path and hands it to write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// profile starts a CPU profile written to path and returns what stops it.
func profile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeHeapProfile writes the allocation profile of the run so far to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// minRuntimeOf is the minimum runtime the flags give: all for both, each of preempt and
// reclaim where it is set (not negative), with its patience.
func minRuntimeOf(all, preempt, reclaim, patience time.Duration) admission.MinRuntime {
	m := admission.MinRuntime{Preempt: all, Reclaim: all, Patience: patience}
	if preempt >= 0 {
		m.Preempt = preempt
	}
	if reclaim >= 0 {
		m.Reclaim = reclaim
	}
	return m
}
