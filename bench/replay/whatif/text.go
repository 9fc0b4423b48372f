package whatif

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/bench/internal/numfmt"

	"github.com/poolgate/poolgate/bench/replay"
)

// errNilWriter is what WriteText reports for a nil io.Writer.
var errNilWriter = errors.New("whatif: the writer is nil")

// WriteText writes the comparison as a table: the two scenarios, then per pool and for
// the total each figure in the base run, the changed run and the difference, then what
// each run's checks found, ending with a one-line verdict. Waits are simulated seconds;
// "GPU share while waiting" is the pool's part of the cluster's GPU capacity over the
// time work waited in that run (replay.QueueStats.UtilizationWhilePending).
func (c Comparison) WriteText(w io.Writer) error {
	if w == nil {
		return errNilWriter
	}
	var b strings.Builder
	change := c.Change.String()
	if change == "" {
		change = "(the changed scenario given whole)"
	}
	cfg := c.Base.Report.Trace
	fmt.Fprintf(&b, "what-if       %s\n", change)
	fmt.Fprintf(&b, "trace         %s pods × %s on %s nodes (%s GPUs), arrivals squeezed %s×\n",
		group(int64(cfg.Pods)), copies(cfg.Config.Copies), group(int64(cfg.Nodes)), group(cfg.Capacity/1000),
		strconv.FormatFloat(cfg.Config.Squeeze, 'g', -1, 64))
	fmt.Fprintf(&b, "base          %s\n", describe(c.Base))
	fmt.Fprintf(&b, "changed       %s\n", describe(c.Changed))
	fmt.Fprintf(&b, "\n%-8s %-26s %14s %14s %14s\n", "pool", "figure", "base", "changed", "diff")
	rows := append(slices.Clone(c.Rows), c.Total)
	for _, r := range rows {
		for i, f := range figures(r) {
			pool := ""
			if i == 0 {
				pool = r.Pool
			}
			fmt.Fprintf(&b, "%-8s %-26s %14s %14s %14s\n", pool, f.name, f.base, f.changed, f.diff)
		}
	}
	b.WriteString("\n")
	for _, o := range []struct {
		name string
		o    Outcome
	}{{"base", c.Base}, {"changed", c.Changed}} {
		fmt.Fprintf(&b, "%-13s %s\n", o.name, verdict(o.o.Report))
	}
	if c.Failed() {
		b.WriteString("result        FAILED: a run broke a check or left work that could never run\n")
	} else {
		b.WriteString("result        ok: every check held after every cycle of both runs and all work ran\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// figure is one line of a row: its name and the three cells.
type figure struct{ name, base, changed, diff string }

// figures returns the lines of a row, "-" for a run without the pool.
func figures(r Row) []figure {
	d := r.Diff()
	cell := func(in bool, s string) string {
		if !in {
			return "-"
		}
		return s
	}
	line := func(name string, b, c, diff string) figure {
		return figure{name, cell(r.InBase, b), cell(r.InChanged, c), diff}
	}
	n := func(v int) string { return group(int64(v)) }
	s, ds := r.Base, r.Changed
	out := []figure{
		line("workloads", n(s.Submitted), n(ds.Submitted), signed(d.Submitted)),
		line("admissions", n(s.Admissions), n(ds.Admissions), signed(d.Admissions)),
		line("wait p50, s", secs(s.WaitP50), secs(ds.WaitP50), signedSecs(d.WaitP50)),
		line("wait p95, s", secs(s.WaitP95), secs(ds.WaitP95), signedSecs(d.WaitP95)),
		line("wait max, s", secs(s.WaitMax), secs(ds.WaitMax), signedSecs(d.WaitMax)),
		line("preempted", n(s.Preemptions), n(ds.Preemptions), signed(d.Preemptions)),
		line("lost work, GPU-h", hours(s.LostGPUHours), hours(ds.LostGPUHours), signedHours(d.LostGPUHours)),
		line("GPU-h held", hours(s.GPUHours), hours(ds.GPUHours), signedHours(d.GPUHours)),
		line("GPU share while waiting", pct(s.UtilizationWhilePending), pct(ds.UtilizationWhilePending),
			signedPoints(d.UtilizationWhilePending)),
	}
	if s.Unplaced > 0 || ds.Unplaced > 0 {
		out = append(out, line("unplaced", n(s.Unplaced), n(ds.Unplaced), signed(d.Unplaced)))
	}
	return out
}

// describe writes a run's set-up in a line.
func describe(o Outcome) string {
	s := o.Scenario
	cfg := o.Report.Trace.Config
	quotas := make([]string, len(o.Report.Trace.Quotas))
	for i, q := range o.Report.Trace.Quotas {
		quotas[i] = group(q / 1000)
		if m := q % 1000; m != 0 {
			quotas[i] += strings.TrimRight(strconv.FormatFloat(float64(m)/1000, 'f', 3, 64)[1:], "0")
		}
	}
	parts := []string{strconv.Itoa(cfg.Pools) + " pools of " + strings.Join(quotas, ", ") + " GPUs"}
	fair := "fair sharing off"
	if s.FairSharing {
		fair = "fair sharing on"
	}
	if len(s.Weights) > 0 {
		var ws []string
		for _, p := range slices.Sorted(maps.Keys(s.Weights)) {
			ws = append(ws, p+" "+strconv.FormatInt(s.Weights[p], 10))
		}
		fair += ", weights " + strings.Join(ws, ", ") + " (others 1)"
	}
	parts = append(parts, fair, s.Strategy.String())
	for _, p := range slices.Sorted(maps.Keys(s.Strategies)) {
		parts[len(parts)-1] += ", " + p + " " + s.Strategies[p].String()
	}
	if cfg.LeastLostWork {
		parts = append(parts, "plans lose the least work")
	}
	if m := cfg.MinRuntime; m.Preempt > 0 || m.Reclaim > 0 {
		parts = append(parts, "minimum runtime "+m.String())
	}
	if cfg.Checkpoint > 0 {
		parts = append(parts, "checkpoints every "+cfg.Checkpoint.String())
	}
	parts = append(parts, "cycles ≥ "+cfg.Period.String()+" apart")
	return strings.Join(parts, "; ")
}

// verdict writes what a run's checks found, in a line.
func verdict(r replay.Report) string {
	var broken []string
	for _, v := range r.Violations {
		if v.Count > 0 {
			broken = append(broken, v.Check.String()+" "+group(int64(v.Count)))
		}
	}
	s := group(int64(r.Cycles)) + " cycles, " + group(int64(r.Admissions)) + " admissions, " + group(int64(r.Preemptions)) + " preemptions; "
	if len(broken) == 0 {
		s += "every check held"
	} else {
		s += "VIOLATIONS: " + strings.Join(broken, ", ")
	}
	if len(r.Unplaced) > 0 {
		s += "; " + group(int64(len(r.Unplaced))) + " workloads never ran"
	}
	return s
}

// copies writes a count of copies.
func copies(n int) string {
	if n == 1 {
		return "1 copy"
	}
	return strconv.Itoa(n) + " copies"
}

// signed writes a difference of counts with its sign, 0 without.
func signed(v int) string {
	if v > 0 {
		return "+" + group(int64(v))
	}
	return group(int64(v))
}

// secs writes simulated seconds as the replay's report does: one decimal below 10 s,
// whole seconds with separators above.
func secs(d time.Duration) string {
	x := d.Seconds()
	if math.Abs(x) < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return group(int64(math.Round(x)))
}

func signedSecs(d time.Duration) string {
	s := secs(d)
	if d > 0 {
		return "+" + s
	}
	if s == "-0.0" {
		return "0.0"
	}
	return s
}

// hours writes GPU-hours with two decimals and thousands separators: 3,614.13.
func hours(h float64) string {
	s := strconv.FormatFloat(math.Abs(h), 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	v, _ := strconv.ParseInt(whole, 10, 64)
	s = group(v) + "." + frac
	if h < 0 {
		s = "-" + s
	}
	return s
}

func signedHours(h float64) string {
	s := hours(h)
	switch {
	case s == "-0.00":
		return "0.00"
	case h > 0 && s != "0.00":
		return "+" + s
	}
	return s
}

// pct writes a share as a percentage with one decimal.
func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + " %" }

// signedPoints writes a difference of shares in percentage points.
func signedPoints(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 1, 64)
	switch {
	case s == "-0.0":
		s = "0.0"
	case f > 0 && s != "0.0":
		s = "+" + s
	}
	return s + " pp"
}

// group writes v with thousands separators: 12,345.
func group(v int64) string { return numfmt.Group(v) }
