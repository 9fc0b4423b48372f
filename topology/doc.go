// Package topology decides whether, and where, a gang fits a cluster's topology: an
// ordered tree of levels such as zone / block / rack / hostname.
//
// A [Cluster] holds the levels, the nodes with their place in the tree and their free
// capacity. [Cluster.Place] takes a [Request] — a tree of groups with K-of-N needs, leaf
// pod counts and shapes, and required / preferred constraints on groups and sets of groups
// — and returns a [Result]: a [Placement] (pods per node per leaf group, the domains each
// constraint landed in), or NoFit with per-domain [Reason]s (`rack b1/r1 can host 3 of 4
// pods of decode-workers`), or BudgetExhausted. [Cluster.Apply] and [Cluster.Remove]
// commit a placement to the free capacity and give it back.
//
// # Non-goals
//
// It knows nothing of pools, quotas, priorities or preemption (package admission composes
// those), nor of PodGroup formats: the request model is plain data onto which a compiled
// gang tree maps one to one (see [Request]). It does not discover topology, watch nodes or
// bind pods; the host feeds it snapshots and applies its answers. One Cluster is one
// topology; a host with several topologies keeps one Cluster per topology.
//
// # Concurrency
//
// Everything is pure: no I/O, goroutines, clock, environment or global mutable state.
// A Cluster's structure never changes after [NewCluster]; Place and the other read methods
// may run concurrently, while Apply and Remove need exclusive access to their Cluster.
// [Cluster.Clone] is cheap (it copies the free capacity only) and clones are independent.
// Values returned to callers never alias the Cluster's state.
//
// # How placement works
//
// Counts follow SPEC §9: the pods of one shape that fit on a node are the minimum over
// requested resources of floor(free / request), and the node's free pod slots; a domain's
// count is the sum over its nodes. Place computes them once per request as prefix sums
// over the node order (nodes are sorted by path, so every domain is a contiguous range)
// and keeps, per level and shape, a btree of domains ordered by pods still available, then
// path: the best fit for a demand is the first item at or above it.
//
// The search chooses, in preference order and backtracking on failure: which children of
// each K-of-N group are placed (any K, subsets in spec order); for each constraint,
// outermost first, its domain; then it reserves each constraint's own pods in its domain.
// With one pod shape, a reservation that keeps every domain within its count satisfies
// Hall's condition on the laminar family of domains, so the reservations always turn into
// node assignments, narrowest domain first; with several shapes sharing nodes the
// assignment step tries every distribution in turn. Hence:
//
//   - soundness: every returned placement keeps every node's capacity across all shapes
//     and every required constraint (an independent validator checks this in tests);
//   - completeness: NoFit means no placement exists. The search tries every choice, so it
//     is complete for every request, mixes of shapes included, as long as the budget
//     ([Options.Budget]) lasts; when the budget runs out the outcome is BudgetExhausted,
//     never NoFit. Requests whose pods share one shape need no distribution search and
//     rarely come near the budget; mixes that crowd the same nodes can.
//   - determinism: equal input gives an equal result.
//
// # Decisions where the spec is silent
//
//   - A node whose label is missing or empty for any level is outside the topology: it
//     belongs to no domain, and only pods that no constraint covers may use it. Pods under
//     a preferred-only constraint stay inside the topology too, since a preference is
//     about where in the topology the pods go.
//   - Preference order for a constraint with a preferred level (SPEC §9): one domain of
//     the preferred level, best fit among all of them inside the parent's domain (or the
//     required domain); else the fewest preferred-level domains inside one domain of the
//     narrowest wider level that fits, that wider domain chosen by best fit; else, so that a
//     preference never makes a feasible request fail, the required domain with no
//     preference. A preferred level at or above the required one is ignored.
//   - Best fit is measured in pods of the constraint's shape left over; for a constraint
//     with several shapes, in units of its scarcest requested resource (the one whose
//     demand is the largest share of the topology's free quantity). Ties go to the domain
//     first in path order. Per-node counts are capped at the request limit (2^30 pods),
//     so domains beyond that compare as equal.
//   - Spreading: among the sets with the fewest domains, the one with least left over;
//     ties go to the set found first when visiting larger domains first, then path order.
//     Pods are spread over the chosen domains most-room first. The same rule picks nodes
//     inside a domain, so pods pack onto the fewest nodes with least left over.
//   - Constraints nest by inclusion of their pod sets; equal sets nest in declaration
//     order (group constraints in preorder, then sets). A nested constraint whose level is
//     wider than its parent's domain is met by that domain.
//   - K-of-N: exactly K children are placed, the first K-subset in lexicographic spec order
//     that fits; unplaced children are not placed as extras.
//   - Elastic extras (Options.Extras) are placed after the minimum, leaf by leaf in spec
//     order, as many as still fit within the region chosen for the leaf's narrowest
//     constraint; they never move or block the minimum.
//   - Explanations look at the configuration with the fewest pods and list, per constraint
//     that no domain can hold on its own, up to eight candidate domains with how many of the
//     pods each could host, closest first.
package topology
