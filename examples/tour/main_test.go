package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTourIsDeterministic runs every section twice: the walk prints the same text each
// time (no map order, no clock), the pool list of the dynamic-subpool example appears
// byte for byte, and the host's section shows the gate's pool list, a capacity that
// follows a lost node and work set aside as inadmissible.
func TestTourIsDeterministic(t *testing.T) {
	run := func() string {
		var b bytes.Buffer
		for _, s := range sections {
			s.run(&b)
		}
		return b.String()
	}
	first := run()
	assert.Equal(t, first, run())
	assert.Contains(t, first, strings.Join([]string{
		"Pool            Status         Subpool State  GPU Quota        Used  Available",
		"--------------  -------------  -------------  ---------------  ----  ---------",
		"team            ONLINE         -              10 (Total: 100)  50    -40",
		"├─ team--a      ONLINE         ACTIVE         30               5     25",
		"├─ team--b      ONLINE         ACTIVE         40               10    30",
		"└─ team--c      ONLINE         ACTIVE         20               0     20",
	}, "\n"))
	assert.Contains(t, first, strings.Join([]string{
		"├─ product              1       gpu       2      5      12      5      -",
		"│  └─ product--shared   1       gpu       2      5      12      5      -",
		"└─ research             2       gpu       2      8      12      8      -",
	}, "\n"), "with fair sharing the weights 2 and 1 split the idle GPUs")
	assert.Contains(t, first, "    evicting train-b, which loses 24000 GPU-s: train-a, evicted once, keeps its 3h this run",
		"the patience takes a first run only")
	assert.Contains(t, first, "  cycle 3: pair: admit to p1--a after preempting big\n  cycle 4: lump: admit to p2--shared\n  cycle 5: nothing passes",
		"work in lumps settles: pair may not evict one, which evicted lump, which evicted pair")
	assert.Contains(t, first, "  least lost work: admit to team--shared after preempting train-a, evicting train-a, which loses 240 GPU-s", "the plan that loses least takes the fresh checkpoint")
	assert.Contains(t, first, "  eviction order:  frees n00, evicting 2 jobs, which lose 54720 GPU-s", "the placement's first node")
	assert.Contains(t, first, "  least lost work: frees n07, evicting 2 jobs, which lose 480 GPU-s", "the node whose work saved last")
	assert.Contains(t, first, "admit to team--shared after taking back 3 elastic pods of train; 0 workloads evicted", "elastic pods go before any workload")
	assert.Contains(t, first, "train runs 8 GPUs, 6 of them elastic", "the gang grows back when the room is free")
	assert.Contains(t, first, "  sweep: starts at 10:30:00 after 3 cycles", "the forecast computed by hand in tourForecast's comment")
	assert.Contains(t, first, "does sweep still start at 10:30? true", "eval ends after 10:30 by either estimate")
	assert.Contains(t, first, "does eval still start at 10:15? false (tune", "tune ends before 10:15 by the new estimate")
	assert.Contains(t, first, "if sweep is withdrawn, does eval still start at 10:15? true", "sweep waits until after 10:15")
	assert.Contains(t, first, "if report is withdrawn, does eval still start at 10:15? false", "report starts at 09:30, before eval")
	assert.Contains(t, first, "if another sweep is submitted now, does eval still start at 10:15? true", "sweep waits until 10:30")
	assert.Contains(t, first, "if a HIGH job of 4 GPUs is submitted now, does eval still start at 10:15? false", "HIGH work is not answered")
	assert.Contains(t, first, "reserves n1 from 10:00", "a's estimate frees n1 first")
	assert.Contains(t, first, "  short  admit to team--shared, backfilled", "a job that ends before the reservation uses its room")
	assert.Contains(t, first, "  job-2: admit to research — nvidia.com/gpu: a100 (Fit); h100: Quota\n", "Kueue's objects decide as read")
	assert.Contains(t, first, "not modelled: ResourceFlavor \"a100\": spec.nodeTaints", "what poolgate does not model is said")
	assert.Contains(t, first, "  research h100: quota 16, maximum 32, 8 allocated to subpools, 8 unallocated\n", "pools keep their quotas per flavor")
	assert.Contains(t, first, "  llm-8: admit to research--llm, charged 8 gpu@h100\n", "a subpool's work is charged its flavor")
	assert.Contains(t, first, "  batch: priority: does not fit: node \"(root)\" allows 2 of 4 \"gpu\" (short by 2)", "why pending: one cause with its numbers")
	assert.Contains(t, first, "evict LOW sweep; ask 2 gpu instead\n", "remedies, checked")
	assert.Contains(t, first, `"Cause":"inadmissible"`, "explanations read as words by a machine")
	assert.Contains(t, first, "  finetune admit to research on n5, n6\n           gpu: a100 (Fit); h100: Preempt\nIt is charged 16 gpu@a100;",
		"the fragmented H100 rack sends the gang to A100 in one decision")
	assert.Contains(t, first, "r2-n4 fails: detector is lost and waits again, submitted 09:00\n")
	assert.Contains(t, first, "told of the failure, decides the same: true\n")
	assert.Contains(t, first, strings.Join([]string{
		"team            ONLINE         -              8 (Total: 48)  8     0",
		"├─ team--a      ONLINE         ACTIVE         24             24    0",
		"└─ team--b      ONLINE         ACTIVE         16             0     16",
	}, "\n"), "the pool list of a gate's pools is its running work")
	assert.Contains(t, first, "  capacity 88 gpu, guaranteed 96, running 64, over-committed true\n")
	assert.Contains(t, first, `  wide: inadmissible: with nothing running, node "(root)" would allow 88 of the 96 gpu asked (short by 8)`+"\n")
	assert.Len(t, sections, 15, "one stop per package, fair sharing, faults, the host's seams, flavors, Kueue's objects, lost work, elastic gangs, why work waits and when it starts")
}
