// Package forecast answers the question a user asks of a queue after "why does my
// work wait": when will it start? It works over an admission.Gate's public API only:
// it copies the gate (a snapshot restored), and runs the gate's own decisions forward
// on the copy — a cycle at now, applied; then, at each instant at which running work
// ends by its estimate, those workloads released and another cycle applied — until
// nothing waits or nothing left running ends. What each cycle admits is a start; what
// it leaves pending is a wait, with the decision's reason, culprit and numbers; what
// its plans evict waits again, and its later start is forecast too.
//
// # Estimates and their fallbacks
//
// A forecast is only as good as the runtimes it is given. Each workload, pending or
// running, runs for its estimate, found in this order:
//
//  1. its own, in the estimates passed to Run, by workload ID;
//  2. its queue's, in Options.ByQueue: first under the leaf queue's name, as
//     decisions name it ("team--shared"), then under the name the work targets
//     ("team");
//  3. Options.Default, when positive;
//  4. none: once it runs, it never ends in the forecast. What waits for its room gets
//     no start (UnstartedStalled), and Forecast.NoEnd names the work that never ended.
//
// A zero estimate is an estimate: such work ends at the instant it starts, and the
// forecast releases it and decides again at that same instant. Running work ends at
// its admission time plus its estimate, but never before now: work past its estimate
// ends at now, before the first cycle, since it is due and the gate cannot tell when
// it will really stop. Work evicted by a plan loses its run and, admitted again, runs
// its whole estimate again. Negative estimates are refused.
//
// # What it does not do
//
// It invents no arrivals and withdraws nothing; it changes no quota, node or rule of
// the gate: it says what the gate, left alone, would do with the work it holds. That
// includes the gate's reservations: a gate with Options.Reservations reserves and
// backfills in the forecast's cycles as it would live, by the estimates it holds
// (Workload.Estimate, Gate.SetEstimate), while the forecast ends work by the estimates
// passed to Run; a host that gives both the same gets a forecast in which reserved
// room frees when the gate expects it to. It does not estimate runtimes, and every
// call starts again from a snapshot: a forecast is not updated after a change, though
// it tells which of its starts three kinds of change leave standing (below). The
// times are as exact as the estimates; with Options.Resolution ends are grouped,
// trading exactness for fewer cycles. A host asking about a few workloads names them
// (Options.For): the forecast stops at the cycle that decides the last of them, with
// the starts the whole forecast would give them.
//
// # After an estimate changes, waiting work is withdrawn, or LOW work is submitted
//
// Three changes can be answered from the forecast alone. The first is a new estimate,
// passed to Run, of one workload. Such an estimate shapes nothing but the end of a run, and each
// cycle decides on the work ended by its instant; so a start stands when every run of
// the changed workload that began by then ends after it, by the old estimate and the
// new alike. Forecast.Stands answers that in a few map reads, and says so exactly:
// where it reports true, a forecast run again with the new estimate starts the
// workload at the same instant. Where it reports false the start may move, and a
// forecast run again for that workload (Options.For) says where to.
// Forecast.StandsUntil says it of every start at once: each start before the instant
// it returns stands. The gate's own
// estimate of the workload is another input: on a gate with reservations it decides
// where they are and what may backfill, so a host that changes it too (as it should,
// to keep both the same) must run the forecast again.
//
// The second is a workload that waited at Now withdrawn (Gate.Withdraw). Work that
// waits shapes no cycle's decisions of other work as long as it is not admitted, holds
// no StrictFIFO queue back and reserves no room, so Forecast.StandsWithdrawn reports
// that a start stands when the forecast admits the withdrawn work only after it, or
// never, and records no such hold or reservation of it up to then; with fair sharing
// on it cannot tell, as a queue's head takes its turn in the tournament whether it is
// admitted or not.
//
// The third is LOW work submitted (Gate.Submit). Without fair sharing LOW work evicts
// nothing, and while no gang runs elastic pods it takes nothing back, so between the
// decisions of two LOW workloads in a cycle the gate only admits, taking room and
// quota: a newcomer of the kind of a workload that waited
// ahead of it (the same queue, request and gang, submitted earlier) is left waiting
// wherever that one is. Forecast.StandsSubmitted reports that a start stands when such
// a workload waited past it, found in an index of the waiting work by kind that every
// forecast builds; where a gang held reserved room by then, the newcomer must be no
// readier to backfill than that workload. Once elastic pods run, which any work may
// take back, it cannot tell, nor for a queue that offers flavors in more than one
// resource group, whose flavors the gate picks group by group without going back.
// Work whose placement search ran out of its budget (Decision.SearchRanOut) answers
// for nothing: its search ruled nothing out.
// Other changes — HIGH or NORMAL work submitted, whose plans may free room between two
// decisions, running work ended early — start again from a snapshot.
//
// # Cost
//
// A forecast costs one snapshot and restore of the gate, then one cycle per distinct
// instant at which running work ends before the last pending workload starts (ends at
// the same instant are one step), each as expensive as the host's own cycle on a queue
// of that depth. The record of waits reads every decision of every cycle; Options.NoWaits
// leaves it out. The cycles are nearly all of it: on the queue of the 4× replay of
// Alibaba's trace (8,894 waiting and 8,011 running on 1,213 nodes, BenchmarkForecastReplay)
// an exact forecast runs 6,049 cycles in 15 to 20 s on two cores, the snapshot and
// restore taking 0.1 s of it; with ends grouped to the minute (Options.Resolution) it
// runs 126 cycles in under 1 s, to ten minutes 10 cycles in about 0.6 s. Grouping is the one lever a forecast has: a cycle cannot be skipped
// without knowing what the gate would decide, which only the cycle tells.
//
// # Concurrency
//
// Run reads the gate like any read of it: safe beside other reads, not beside a
// write. It drives its own copy, and the Forecast it returns shares nothing with the
// gate. It starts no goroutine, reads no clock and does no I/O: the instant it
// forecasts from is an argument.
package forecast
