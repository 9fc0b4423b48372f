// Package topology decides whether, and where, a gang fits a cluster's topology: an
// ordered tree of levels such as zone / block / rack / hostname.
//
// A [Cluster] holds the levels, the nodes with their labels, their place in the tree,
// their capacity and what of it is free. [Cluster.Place] takes a [Request] — a tree of groups with K-of-N
// needs, leaf pod counts, shapes and node selectors, and required / preferred
// constraints on groups and sets of groups — and returns a [Result]: a [Placement] (pods
// per node per leaf group, the domains each constraint landed in), or NoFit with
// [Reason]s that name the narrowest group that cannot be placed and what each candidate
// domain can hold of it (`rack b1/r1 can host 3 of 4 pods of decode-workers`), or
// BudgetExhausted. [Cluster.Apply] and [Cluster.Remove] commit a placement to the free
// capacity and give it back. [Cluster.AddNode], [Cluster.RemoveNode], [Cluster.Cordon],
// [Cluster.Uncordon] and [Cluster.SetCapacity] follow the nodes as they change. A
// planner that chooses which node to free for one pod asks [Cluster.PodRoom]: a tally,
// node by node, of whether the pod would fit once some placed work ([Footprint]s) were
// taken off, without a search per node; one that asks again and again whether a
// placement still fits compiles it once and asks [Cluster.HoldsFootprint], a read. A
// gang that runs grows with [Cluster.PlaceElastic]: its elastic pods beside the
// placement it holds, inside the domains that placement records, where they still fit.
// A placement a host reports, of work that runs already, is checked against its request
// with [Cluster.Satisfies]: its groups at their minimum, its pods of their shape, on
// nodes their selectors allow.
//
// [Cluster.FromGang] turns a compiled gang of package gang (a KAI PodGroup) into a
// Request, and [ToGang] reads the placement back in the gang's terms: pods per node by
// SubGroup name for binding, and the placed pods as gang configurations with the resources
// admission charges, ready for gang's readiness check:
//
//	tree, _ := gang.Compile(spec)
//	req, _ := tree.Requests([]string{"gpu", "cpu"}, perPodByLeaf)
//	r, _ := cluster.FromGang(tree, req, topology.GangOptions{Name: "inference"})
//	res, _ := cluster.Place(r, topology.Options{})
//	gp, _ := topology.ToGang(tree, req, res.Placement) // gp.Nodes, gp.Minimum.Request
//
// # Non-goals
//
// It knows nothing of pools, quotas, priorities or preemption (package admission composes
// those). It reads PodGroups only through package gang's compiled trees: the request model
// is plain data onto which a gang tree maps one to one (see [Request] and
// [Cluster.FromGang]). It does not discover topology, watch nodes or bind pods; the host
// feeds it snapshots and applies its answers. One Cluster is one topology; a host with
// several topologies keeps one Cluster per topology.
//
// # Concurrency
//
// Everything is pure: no I/O, goroutines, clock, environment or global mutable state.
// Place and the other read methods may run concurrently, while Apply, Remove and the node
// changes need exclusive access to their Cluster. Place does write one thing: the
// Cluster's cache of counts per pod shape and the scratch its searches reuse, both behind
// a lock inside the Cluster, filled once per shape and never read for a result that a
// fresh count would not give. [Cluster.Clone] is cheap: it copies the free and used
// capacity and shares the rest copy on write — the structure, the labels and flags of the
// nodes, the aggregates and the cached counts — so that a clone taken per scheduling
// cycle starts with what the original has counted. Clones are independent, node changes
// included, and may be used from different goroutines. Values returned to callers never
// alias the Cluster's state. A [PodRoom] reads its Cluster when asked and keeps a tally
// of its own: one per goroutine, and not while the Cluster changes.
//
// # How placement works
//
// The pods of one shape that fit on a node are the minimum over requested resources of
// floor(free / request), and the node's free pod slots; a domain's count is the sum
// over its nodes. A leaf's node selector makes its pods a kind of their own: they count
// only on the nodes that match, every other node holds 0 of them, and so every count
// the search reads — fit, best fit, spreading, explanations — is over the matching
// nodes. The Cluster keeps counts rather than counting on every call. For each kind of
// pod it has placed, a shape with a selector or without (the last eight used), it holds
// the count of every node, their sums per domain, and, built on first use, a btree per
// level of the domains ordered by count then path and a btree of the nodes ordered by
// count then node order; with a selector, which nodes match. Whatever the kind, it also
// holds the free quantity of every resource summed per domain with the largest such sum
// per level, and the largest free quantity on any node; these are upper bounds for any
// selector, and are only read as such. Apply and Remove keep all of it in step for the
// nodes they touch, each domain once per call: O(nodes touched × (resources + kinds) ×
// depth × log n).
//
// The search chooses, in preference order and backtracking on failure: which children of
// each K-of-N group are placed (any K, subsets in spec order); for each constraint,
// outermost first, its domain; then it reserves each constraint's own pods in its domain.
// With one pod shape, a reservation that keeps every domain within its count satisfies
// Hall's condition on the laminar family of domains, so the reservations always turn into
// node assignments, narrowest domain first; with several shapes sharing nodes the
// assignment step tries every distribution in turn. How each step reads the cluster:
//
//   - A configuration is first held against the bounds: a pod larger than any node's free
//     capacity, more pods of a kind than its nodes hold in the whole topology (a selector
//     that matches no node with room), or a constraint whose pods need more of a resource
//     than the largest domain of its level has free, rules it out before anything else is
//     counted.
//   - The best fit for a demand is the first domain of the level's btree at or above it.
//     The btrees hold the counts of the free capacity; the domains where the search has
//     reserved pods are set aside and weighed on what is left of them. A constraint with
//     several shapes enumerates the domains where its most demanded shape fits alone.
//   - Pods go on the fewest nodes of their domain that hold them with least left over,
//     then on the others in node order. On a domain of more than 256 nodes (an
//     unconstrained launcher's is the whole cluster) the node btree gives the tightest
//     node, or the nodes in order of room, one at a time, as far as the choice reads.
//   - With several shapes, reservations that each keep within their shape's counts may
//     still not fit together. Before trying distributions, the search checks that every
//     domain holding reservations has free at least their summed resources; a leader that
//     needs a rack its workers already fill is refuted there, not by trying every
//     distribution of the workers over the rack's nodes for every candidate set of racks.
//
// None of this changes which placement is found: the bounds and the summed-resource check
// only cut branches that cannot succeed, and the indexes answer what a scan of every
// domain and node would. The tests keep that scan (counts computed for the one call, every
// candidate found by scanning) and compare the two on random clusters, through Apply,
// Remove and Clone. Hence:
//
//   - soundness: every returned placement keeps every node's capacity across all shapes
//     and every required constraint (an independent validator checks this in tests);
//   - completeness: NoFit means no placement exists. The search tries every choice, so it
//     is complete for every request, mixes of shapes included, as long as the budget
//     ([Options.Budget]) lasts; when the budget runs out the outcome is BudgetExhausted,
//     never NoFit. Requests whose pods share one shape need no distribution search and
//     rarely come near the budget; mixes that crowd the same nodes can.
//   - determinism: equal input gives an equal result, whatever the Cluster has cached.
//
// # Decisions the placement rules leave open
//
// The rules themselves (docs/rules.md, Topology) are: every pod of the minimum placed
// with node capacities kept across all shapes; each constraint's pods in one domain of
// its required level or a narrower one; a preferred level honoured when possible; best
// fit among feasible domains, at the level being chosen; the fewest domains, then the
// least leftover, when pods must spread; sound always, complete for one shape, and
// explanations that are never false. The choices below go beyond them.
//
//   - A Request's Root may be unnamed, so a direct request needs no invented name: it is
//     reported under "" (Assignment.Group of a root that is itself the leaf, the Scope of
//     its constraint and of reasons about it), and explanation texts call it "the gang".
//     Every other group needs a name. Placement.ByGroup reads a placement as pods per
//     group per node.
//   - A node whose label is missing or empty for any level is outside the topology: it
//     belongs to no domain and no pod uses it, constrained or not. Its free capacity
//     counts nowhere, not even in the bounds or in Fit of the whole cluster.
//   - Labels that are not levels are for selectors. A selector is matched exactly: a node
//     matches when it has every key with one of the key's values; a node without a key
//     does not. A selector may name a level's key. Selectors go on leaves only; a key
//     without values is an invalid request, an empty or nil Selector none.
//   - Preference order for a constraint with a preferred level: one domain of the
//     preferred level, best fit among all of them inside the parent's domain (or the
//     required domain); else the fewest preferred-level domains inside one domain of
//     the narrowest wider level that fits, compared over every domain of that level
//     that fits (fewest domains, then least left over, then path order), not by the
//     wider domain's own best fit; else, so that a preference never makes a feasible
//     request fail, the required domain with no preference. A preferred level at or
//     above the required one is ignored.
//   - Best fit is measured in pods of the constraint's kind left over, on the nodes its
//     selector matches; for a constraint with several kinds (shapes, or one shape under
//     several selectors), in units of its scarcest requested resource (the one whose
//     demand is the largest share of the free quantity), both summed over the nodes that
//     match at least one of its kinds (every node when one of them has no selector).
//     Ties go to the domain first in path order. Per-node counts are capped at the
//     request limit (2^30 pods), so domains beyond that compare as equal.
//   - Spreading: among the sets with the fewest domains, the one with least left over;
//     ties go to the set found first when visiting larger domains first, then path order.
//     Pods are spread over the chosen domains most-room first. The same rule picks nodes
//     inside a domain, so pods pack onto the fewest nodes with least left over.
//   - Constraints nest by inclusion of their pod sets; equal sets nest in declaration
//     order (group constraints in preorder, then sets). A nested constraint whose level is
//     wider than its parent's domain is met by that domain. When the parent spread over
//     several domains narrower than a nested preferred level, the pods go to the part of
//     the parent's region under one preferred-level domain if one holds them, and
//     otherwise anywhere in that region: there is no preferred-level domain to spread over.
//   - K-of-N: exactly K children are placed, the first K-subset in lexicographic spec order
//     that fits; unplaced children are not placed as extras.
//   - Elastic extras (Options.Extras) are placed after the minimum, leaf by leaf in spec
//     order, as many as still fit within the region chosen for the leaf's narrowest
//     constraint; they never move or block the minimum.
//   - Explanations name the narrowest group that cannot be placed, from the gang down:
//     a group of which fewer than K children can be placed on their own is explained by
//     those children; a leaf, or a group whose children fit on their own but not
//     together, is named itself, with the configuration of the K children that fit with
//     the fewest pods. "Can be placed on its own" is decided by the explanation's own
//     test, not by a search: for every constraint over the group's pods some domain of
//     its level holds them jointly. That is necessary for a placement, so a group that
//     fails it truly cannot be placed, and an explanation costs no search budget and
//     reads the same from the scan and the indexes. For a named group, each constraint
//     over its pods that no domain holds is reported (the constraints inside it are
//     not: it already says why), as a count per domain of the constraint's level, or of
//     the whole cluster (the zero Domain) for an unconstrained or preferred-only group.
//     A count is the most pods of the counted groups the domain holds at once, each up
//     to its minimum, the nodes' capacity shared: with one kind the kind's count, with
//     several a search over the domain's nodes of how many pods of each kind to put on
//     each (a joint count: a block of 4 CPUs holds 4 of a 1-leader + 4-worker group,
//     never 5). When that search would be too large it gives the most of any one kind,
//     marked AtLeast. The scope is the group when the constraint covers all of its
//     counted pods, else the constraint's own (a set, a nested group). Domains are
//     listed largest count first, ties in path order, at most eight, the rest summed up
//     in one sentence with the largest count among them. A leaf whose selector no node
//     of the topology matches is explained by a sentence that says so; matching nodes
//     without room give counts (`0 of 2 pods`). When not even the whole cluster holds
//     a group, the domains of its constraint get their counts too, so that the one
//     that comes closest is named. When each constraint fits on its own, one sentence
//     names the group, followed, for a group of one kind of pod whose inside
//     constraints nest no further, by each domain's count of its pods with them kept
//     (`block b1 can host at least 5 of 6 pods of root`): a placement, the largest
//     inside constraint first into its roomiest sub-domain, so a lower bound.
//   - A resource a node offers without limit (Unlimited) stays unlimited whatever is placed
//     on it, and the node still counts what it holds of it, exactly, so that Remove gives
//     back what Apply took and a capacity set later counts what runs. The count must stay
//     below Unlimited: such a node holds at most Unlimited − 1 of the resource in all.
//     Place puts no more there (pods of a real size never come near it; one that asks
//     Unlimited fits no node), and Apply refuses a placement that would bring a node past
//     it, changing nothing, as it refuses one that needs more than is free elsewhere. The
//     bound costs the counts nothing where no request can reach it: below 2^61 held, for
//     pods that ask less than 2^31 each. So Apply of a placement that Place returned, on
//     the unchanged cluster, always succeeds, and Apply then Remove restores the free
//     capacity exactly.
//   - The Assignments of one group in a placement share one copy of the group's shape: a
//     placement over hundreds of nodes would otherwise spend more on copying shapes than
//     on finding the nodes. Nothing else holds that copy.
//
// # Nodes that change
//
// A node is kept in a slot, its index, with its free capacity and what the applied
// placements hold of it (used, exact: Apply keeps it below Unlimited), so that its
// capacity is always free + used: Capacity reads it, and a change of capacity keeps what is placed. Every
// change goes through the routine that keeps the aggregates and the cached counts in step
// for the nodes it touches, so Apply, Remove, RemoveNode, Cordon, Uncordon and
// SetCapacity cost what the node touches: its domains, one level at a time, and its count
// in each cached kind. Decisions:
//
//   - RemoveNode leaves the slot behind, marked gone: every other node keeps its index,
//     so footprints compiled before stay valid for them. A placement or footprint that
//     names the removed node is refused, whole, as one naming an unknown node: the pods
//     it held there are gone with the node, and the host gives back their other pods
//     first, or with a placement of the other nodes only. A domain whose nodes are all
//     gone is no domain (Domains, Fit and explanations leave it out).
//   - AddNode of a node that was removed, under its name and at its place in the
//     topology, takes its slot again (labels, capacity and cordon are the new ones), at
//     the cost of what it touches. Any other new node lays the nodes out anew, from the
//     cluster's own rows (O(nodes log nodes), well under NewCluster's cost), carrying over
//     every node's state exactly and dropping the slots of the nodes gone: indices change,
//     and footprints compiled before are then read by node name (and resource name), so
//     they stay valid for every node that still exists. SetCapacity naming a resource the
//     cluster has never counted lays the nodes out anew too.
//   - Cordon: Place never uses a cordoned node (its counts are 0, it is in no bound);
//     what runs there stays, Remove gives back as usual, and Apply of a placement that
//     uses it is taken, since that is how a host restores or re-applies running work.
//   - SetCapacity below what is placed is taken: the free quantity goes below zero and
//     the node is over-committed, as quota lets usage stand above a lowered quota. Place
//     puts no pod that asks for the short resource there (pods that ask none of it may
//     still go), Apply refuses more of it, and the host, which knows the workloads, names
//     the ones that no longer fit and gives their pods back. Nodes and Free report the
//     negative quantity, and NewCluster takes it back when the node gives its Capacity.
//   - Remove refuses to give back more of a node than the applied placements hold: a
//     placement that was never applied would make capacity out of nothing.
//   - Every node counts its pods, whether or not it limits its slots, so that a slot
//     limit set later counts the pods already there. On a resource offered without limit
//     (Unlimited capacity) what is placed is counted, up to Unlimited − 1 (see above), but
//     not reported: its free quantity stays Unlimited, and NewCluster of the cluster's
//     Nodes starts such a node empty.
//
// # From a gang to a request, and back
//
// FromGang maps a gang tree one to one, names included, so that placements and
// explanations speak of SubGroups (`rack b1/r1 can host 3 of 4 pods of decode-workers`):
//
//   - the PodGroup is the Root, named by GangOptions.Name ("PodGroup" when empty, which
//     must not be a SubGroup's name); a PodGroup without SubGroups is a single leaf;
//   - a leaf SubGroup is a leaf Group: Pods = minMember, Shape = the request of one pod
//     (zero quantities left out; a request of one Pods slot is what every pod takes, and
//     any other Pods request is an error), Extra = GangOptions.Extra, Selector = its
//     nodeSelector, unchanged (a PodGroup without SubGroups: spec.nodeSelector);
//   - a mid-level SubGroup or the PodGroup is an inner Group, Need = minSubGroup (0 when
//     every child is required);
//   - gang's effective constraint tree (gang.Tree.Constraints, not re-derived here): the
//     PodGroup's or global constraint is the Root's, a SubGroup's its Group's, a
//     SubGroupSet's a Set of its members with the default label
//     ("decode-workers+decode-leaders"). Constraints over equal pod sets nest in the same
//     order in both packages: the PodGroup's, SubGroups' from the shallowest, then sets.
//
// Decisions:
//
//   - Levels are matched by name. A level the cluster does not have is an error that names
//     the constraint by its spec path and the level, before anything is placed: a gang
//     written for another topology should not silently lose a constraint. The constraint's
//     topology name is checked only when GangOptions.Topology says which one this cluster
//     is.
//   - Charge and placement agree. Admission charges gang.Tree.MinRequest; where a
//     minSubGroup leaves a choice, FromGang lists MinRequest's chosen children first (each
//     part in spec order), and since Place takes the first K-subset that fits, MinRequest's
//     configuration is placed whenever it fits. When it does not, Place may choose other
//     children: ToGang reports what was placed, which is then what admission charges (it is
//     never less than MinRequest, which is the cheapest). GangOptions.Exact forbids other
//     choices.
//   - The PodGroup's backward-compatible minMember floor has no counterpart in a Request.
//     When the fewest pods of any configuration already reach it, it is left out: it holds
//     whatever Place chooses. Otherwise the request is exact: it asks for MinRequest's
//     configuration, which gang completes by adding the missing pods to the leaf with the
//     cheapest pod, so that the pods placed meet the floor and are the ones charged. A
//     floor together with a minSubGroup below it thus loses the choice of children.
//   - Elastic extras: a leaf's Extra is what GangOptions.Extra asks beyond minMember, less
//     the pods the floor already gave it. Only leaves that are placed get extras; replicas
//     beyond the K placed are not added as extras.
//   - ToGang counts an assignment's Elastic pods as elastic and the rest as the minimum; it
//     checks names and shapes against the tree and the requests. A PodGroup without
//     SubGroups reads back under the name "", as in gang.Tree.LeafCounts.
package topology
