// Package explain answers the question operators ask of a scheduler most: why is this
// workload pending, and what would it take to run it now? It works over an
// admission.Gate's public API only: it reads the gate, runs the gate's own decisions —
// a cycle, which changes nothing, and Decide — and tries every remedy on a copy of the
// gate (a snapshot restored), never on the gate itself.
//
// Explain gives, for a pending workload, one dominant Cause from a closed set, with its
// numbers (asked, free, short by), its culprit (a tree node, a queue, a topology
// domain, the workload ahead of it), its position in its queue and in the cycle's
// order, and how long it has waited. Beside the cause come Remedies, each checked
// before it is returned: applied to a copy of the gate, the workload decided again is
// admitted. A remedy that does not admit is never returned; when none does, the one
// remedy is to wait. HIGH/NORMAL work that a plan admits once running LOW work has run
// its minimum runtime, or once the workload has waited that runtime's patience, also
// gets the first such time (a wait with Until), checked by a decision at that time. DryRun explains a workload that was never submitted, with the
// gate untouched, at the cost of one decision. ApplyRemedy carries a remedy out.
//
// The cost: a cycle decides every pending workload, so a host that explains the work
// of a cycle runs it once and reads it once (ReadCycle; ExplainAll), and each
// explanation then costs about one decision of the workload. Each remedy check restores
// a snapshot of the gate, which on a large gate takes milliseconds: ask for remedies
// of the workloads an operator looks at, not of every one.
//
// What it does not do: it changes no gate, evicts nothing and raises no quota; it
// invents no arrivals or departures; its causes are those of the gate's decisions and
// nothing the gate does not know (a node's kubelet, an image pull). The remedies are
// found by bounded searches (Options.MaxChecks): smallest by construction where the
// search is exhaustive (one quota raise, a shape); for victims, the fewest when every
// smaller set fits the budget, and always 1-minimal (no single one can be spared).
//
// Concurrency: Explain and DryRun read the gate as any read does (safe beside other
// reads, not beside a write) and allocate their own copies; the values they return
// share nothing with the gate.
package explain
