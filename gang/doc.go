// Package gang decides when a gang of pods may run: KAI PodGroups with hierarchical
// SubGroups, minMember and minSubGroup.
//
// Its one job is the gang's own logic, from the spec to the decisions a scheduler and
// an admission gate need:
//
//   - Spec, ParseSpec: the KAI scheduling.run.ai/v2alpha2 PodGroup spec as JSON, plus
//     the topologyConstraints{global, subGroups, subGroupSets} of KAI's
//     hierarchical-PodGroup design;
//   - Validate, Compile: every problem at once, with field paths, then an immutable
//     Tree with dense indices;
//   - Tree.Readiness: per-node status from per-leaf satisfied-pod counts;
//   - Tree.MinPods, Tree.MinRequest: the minimum configuration (which leaves, how
//     many pods each) and its size or cost, for admission and topology;
//   - Tree.NextStep: which pending pods to schedule next, all or nothing until the
//     gang is ready, elastically after;
//   - Tree.Constraints: the effective topology-constraint tree that topology places;
//   - Tree.Mermaid: the tree as a diagram.
//
// A typical host parses a PodGroup's spec, compiles it once, and then calls the Tree's
// methods on every scheduling cycle with fresh counts:
//
//	spec, err := gang.ParseSpec(raw)
//	tree, err := gang.Compile(spec)
//	var st gang.Status
//	err = tree.Readiness(counts, &st) // st.Ready(), st.Node(i)
//
// # Rules
//
// minMember counts descendant pods and minSubGroup counts direct child SubGroups; a
// node has at most one of them. A leaf SubGroup needs minMember ≥ 1. A mid-level
// SubGroup or the PodGroup takes minSubGroup K (1 ≤ K ≤ its children) or neither,
// meaning every child is required. The PodGroup's minMember next to SubGroups is a
// floor on the total satisfied pods, on top of every child being required; without
// SubGroups it is the gang size. A leaf is satisfied when its satisfied pods reach
// minMember, a node when K of its children are, and the PodGroup when, besides, the
// floor holds. Where KAI's hierarchical-PodGroup design and its later minSubGroup
// design disagree, the later one rules. docs/rules.md (Gangs) states every rule, the
// order of Validate's problems, the minimum requirement and the ordering of the next
// pods included.
//
// Non-goals: gang knows nothing about pools, quotas, priorities or nodes. Queue and
// PriorityClassName are carried, not interpreted; topology levels are names that the
// topology package gives meaning to; placing pods is topology's job, charging them
// admission's. Kubernetes types are not used: hosts convert at the edge.
//
// # Concurrency
//
// A Tree is immutable: any number of goroutines may call its methods at once. Status
// and Step are caller-owned buffers that make Readiness and NextStep allocation free;
// each goroutine needs its own. Everything a method returns is a fresh value that
// shares nothing with the Tree. The package has no global mutable state, does no I/O
// and reads no clock.
//
// # Decisions the rules leave open
//
//   - Numbering: nodes and leaves are numbered in depth-first preorder with siblings in
//     spec order, so subtrees are contiguous ranges and "spec order" among siblings is
//     index order. Per-leaf slices follow leaf numbering; Tree.LeafCounts and
//     Tree.Requests convert from names, Tree.CountsByName and Tree.StepByName back.
//   - minMember: 0 counts as unset next to minSubGroup, as KAI's omitempty does and as
//     KAI's minSubGroup design allows ("must be 0 or unset"), and on the PodGroup with
//     SubGroups (no floor); wherever a count is required — a leaf, a PodGroup without
//     SubGroups that gives one — it must be at least 1. An explicit minSubGroup: 0 is
//     an error, while an absent one means "all children".
//   - A PodGroup without SubGroups is a gang of minMember pods, or of one pod when
//     minMember is absent (as in KAI), so {} and {"subGroups": []} are valid. It
//     compiles to a single node that is both the root and leaf 0, whose name in the
//     by-name methods (LeafCounts, Requests, CountsByName, StepByName) is PodGroupLeaf,
//     the empty string: its pods carry no kai.scheduler/subgroup-name label, and no
//     SubGroup can have that name.
//   - Every FieldError carries the Rule it breaks (ErrCycle, ErrMinSubGroupExceeds,
//     WarnNoEffect, …), so hosts tell problems apart with errors.Is, not by message.
//   - parent: "" is the same as no parent (the hierarchical-PodGroup design declares it
//     a plain string).
//   - SubGroup names must be valid label values, since pods carry them in the
//     kai.scheduler/subgroup-name label.
//   - The PodGroup's constraint may come from topologyConstraint or
//     topologyConstraints.global, a SubGroup's from its topologyConstraint or
//     topologyConstraints.subGroups[name]. Giving one scope two different constraints is
//     an error; giving it the same one twice is a warning. An empty constraint object
//     is "none" (KAI writes topologyConstraint: {} by default). A constraint without a
//     level has no effect and draws a warning when it names a topology, or when it is a
//     topologyConstraints.subGroups entry or a SubGroupSet's constraint, which exist
//     only to constrain. A SubGroupSet listing no SubGroups is an error.
//   - Constraints covering exactly the same pods nest in a fixed order: the
//     PodGroup's, then SubGroups' from the shallowest, then SubGroupSets in listed
//     order. Tree.Constraints always starts with the PodGroup's, so it is a tree.
//   - Warnings: besides the above, a PodGroup minMember floor that its SubGroups
//     already imply (the hierarchical-PodGroup design wrote minMember: 2 meaning "two
//     SubGroups").
//   - Laminarity is checked only on a well-formed tree (unique names, known parents,
//     no cycles), since pod sets are not defined otherwise. Each constraint that
//     crosses another is reported once, against one constraint it crosses.
//   - MinRequest compares totals resource by resource in the caller's order, so the
//     caller puts its scarcest resource first. Floor pods go to the cheapest leaf.
//   - NextStep works from satisfied and pending pods per leaf; pending pods are also the
//     limit of elasticity. A child whose missing pods are not all pending is passed
//     over; when no choice completes the PodGroup the step is StepBlocked. Pods for
//     the PodGroup's floor come from pending pods in leaf order.
//   - Node selectors (a poolgate extension: KAI puts selectors on pods) go on leaf
//     SubGroups as nodeSelector: label key → the values accepted. A PodGroup without
//     SubGroups is its own single leaf, so it takes one too, as spec.nodeSelector; a
//     PodGroup with SubGroups or a mid-level SubGroup taking one is an error
//     (ErrSelectorOnInner), as is a key without a name or without values
//     (ErrEmptySelector). nodeSelector: {} and null are "none". gang only carries a
//     selector: Tree.NodeSelector gives it with each value set sorted and without
//     repeats, and topology matches nodes against it.
//   - Text is UTF-8: Compile refuses a queue, priorityClassName, node-selector key or
//     value, or topology level or name that is not (ErrNotUTF8), and ParseSpec input
//     that is not (ErrJSON). encoding/json writes or reads every other byte as U+FFFD,
//     so two different strings would come out as one, and Tree.Equal and Tree.Spec
//     work on the spec's JSON.
//   - Counts and requests are int64 and checked: negative values are errors; sums of
//     pods saturate; a request total that would leave the int64 range is an error.
package gang
