// Command tour walks through every poolgate package on built-in example data and prints
// what each one decides. It is the README's main command: go run ./examples/tour.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// section is one stop of the tour: a title, one line on what it shows, why a platform
// needs it, the package it walks through, and the walk.
type section struct {
	title string
	about string
	why   string
	pkg   string
	run   func(w io.Writer)
}

var sections = []section{
	{"naming", "pool and subpool names, KAI queue names, roles and access",
		"Every other decision starts from a name: a subpool is team--a, its access is team's, and\n" +
			"its KAI queue must be a valid Kubernetes name. One parser decides all of it.",
		"naming", tourNaming},
	{"pools and subpools", "quota partitions, their lifecycle, the pool list and the KAI queue set",
		"An admin splits a pool's GPUs into guaranteed slices for teams without moving running work;\n" +
			"quota decreases are soft, deletes drain, and history stays for audit.",
		"quota (PoolSet)", tourPools},
	{"quota tree", "hierarchical cohorts with borrowing and lending limits (KEP-79)",
		"Underneath, every admission asks one question: does this request fit this queue, given\n" +
			"everyone's usage and the borrowing and lending limits on the way to the root?",
		"quota (Tree)", tourQuotaTree},
	{"gang", "KAI PodGroups with SubGroups, minMember and minSubGroup",
		"A distributed job is useful only when enough of its parts run together: the gang says how\n" +
			"many pods of which SubGroups make it ready, and what the cheapest ready set costs.",
		"gang", tourGang},
	{"topology", "placing gangs into block / rack trees",
		"Pods that talk a lot must sit close: each SubGroup's pods go into one rack or block when\n" +
			"the constraint says so, and the largest free domains are kept whole.",
		"topology", tourTopology},
	{"admission", "the static OSMO gate, usage-aware admission, preemption and the scheduling cycle",
		"The front door composes the rest: a static check on submit, then, in each scheduling cycle,\n" +
			"who runs, who waits and for what, and which LOW work is preempted to make room.",
		"admission", tourAdmission},
	{"fair sharing", "idle GPUs shared by weight, not by arrival",
		"When several teams want the same idle GPUs, the one that asked first should not keep them all:\n" +
			"with fair sharing each team's share of what no quota covers follows its weight.",
		"admission (Options.FairSharing) and quota (FairShares)", tourFairShare},
	{"faults", "nodes that fail, and state that survives a restart",
		"A controller loses nodes and restarts: the work on a failed node must wait again, never be\n" +
			"placed on the node that is gone, and a gate rebuilt from a snapshot must decide as before.",
		"admission (RemoveNode, MarshalBinary, Restore)", tourFaults},
	{"host", "one ledger, one capacity, and work that can never run",
		"A controller changes pools while work runs, loses nodes, and is sent work that cannot run on\n" +
			"what it has: the pool list must be the running work, the capacity the nodes', and such work\n" +
			"must wait aside with its reason instead of costing every cycle.",
		"admission (NewForPools with a cluster, CreateSubpool, Capacity, Inadmissible)", tourHost},
	{"flavors", "quota per GPU model, chosen by the gate",
		"H100 quota is not A100 quota: work asks for GPUs, the queue lists the models it may use in\n" +
			"order, and the gate picks one, charges that model's quota, keeps the pods on its nodes and\n" +
			"says which models it tried and why each was passed.",
		"quota (Flavors, ResourceGroup) and admission (Decision.Flavors)", tourFlavors},
	{"Kueue's objects", "ResourceFlavors, ClusterQueues and LocalQueues read as kubectl prints them",
		"A platform that runs Kueue already has its quotas written down: read them as they are, see\n" +
			"what poolgate would not do with them, and decide on the gate they describe.",
		"manifests (ReadKueue, ReadKAI, Config.Build)", tourManifests},
	{"lost work", "preemption that loses the least work, minimum runtimes, no evictions in turn",
		"Every eviction throws away what a job computed since it last saved: the gate counts it per\n" +
			"victim, picks the plan that loses least, leaves young work alone for a minimum runtime,\n" +
			"and never lets workloads take turns evicting each other.",
		"admission (Options.LeastLostWork, Checkpoint, MinRuntime)", tourLostWork},
	{"elastic gangs", "pods above a gang's minimum: grown into idle GPUs, taken back first",
		"A training job that can use more workers should get them while GPUs are idle, and give\n" +
			"them back, pod by pod, before anyone's job is killed to make room.",
		"admission (Gang.Extra, Decision.Shrinks, CycleResult.Grows)", tourElastic},
	{"why pending", "one cause with its numbers, and remedies checked before they are offered",
		"Why does my job wait, and what would run it? The gate answers with its own decisions: one\n" +
			"cause from a closed set, the numbers, the culprit and the job's place in line, and\n" +
			"remedies it tried on a copy of itself first.",
		"explain (Explain, DryRun)", tourWhyPending},
	{"forecast", "when pending work starts, and room kept for a big job",
		"When will my job start? With estimated runtimes the gate runs its own cycles forward on a\n" +
			"copy of itself: each start follows its rules, and each wait says what held it. A big job\n" +
			"that has waited long keeps the room the estimates free first; short work may use it meanwhile.",
		"forecast (Run, Options.For, Stands, StandsWithdrawn, StandsSubmitted), admission (Options.Reservations with Reservations.Priorities, Workload.Estimate)", tourForecast},
}

func main() {
	w := os.Stdout
	fmt.Fprintln(w, "poolgate tour: who may use which GPUs")
	for i, s := range sections {
		title := fmt.Sprintf("%d. %s — %s", i+1, s.title, s.about)
		fmt.Fprintf(w, "\n%s\n%s\n", title, strings.Repeat("=", len([]rune(title))))
		fmt.Fprintf(w, "%s\n(package %s)\n\n", s.why, s.pkg)
		s.run(w)
	}
	fmt.Fprintln(w, "\nEach story in full: go run ./examples/subpools, ./examples/cohorts, ./examples/elastic,")
	fmt.Fprintln(w, "./examples/topology, ./examples/priority, ./examples/fairshare, ./examples/nodefailure,")
	fmt.Fprintln(w, "./examples/flavors and ./examples/whypending;")
	fmt.Fprintln(w, "a controller end to end: go run ./examples/host.")
	fmt.Fprintln(w, "The rules are in each package's doc (go doc ./quota).")
}
