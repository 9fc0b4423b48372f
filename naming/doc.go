// Package naming owns the names of poolgate: top-level pools (team), subpools in their
// canonical form (team--a), the KAI queue names a namespace's pools map to, the two pool
// roles, and access resolution.
//
// Names are values in the style of net/netip: Name is small, immutable and comparable;
// Parse and String round-trip exactly; MarshalText and UnmarshalText make it usable in
// JSON and as a map key in encodings. Every rejection is a *NameError that quotes the
// input, names the component and the Rule it breaks, and works with errors.As and
// errors.Is (each Rule is itself an error).
//
// # Rules
//
//   - A pool name matches OSMO's ^[a-zA-Z]([a-zA-Z0-9_.-]*[a-zA-Z0-9])?$, has at most 63
//     characters and never contains the delimiter "--". Names are case-sensitive.
//   - A subpool short name follows the same rule and is not "shared", which is reserved
//     for the parent's direct-submission leaf queue.
//   - A canonical subpool name is {parent}--{short}, at most 63 characters in all. The
//     first "--" splits it; a second one is an error (subpools have no subpools), so
//     team---a parses as parent team and short name -a, which is rejected.
//   - Access to a subpool is access to its parent, decided by comparing the parsed parent,
//     never by string prefix. Roles exist for top-level pools only; Policy gives a pool's
//     two roles and its access patterns (pool/team, pool/team--*) in one value.
//   - Errors of JoinSubpool and Name.Subpool quote the canonical name parent--short and
//     name the component at fault, as Parse's do, so the host sees the name it built.
//   - KAI queue names are derived, then validated as Kubernetes object names; a name that
//     fails (a pool named Team_1, say) is an error, never silently rewritten.
//
// Checks run in a fixed order (empty, length, characters, first, last, delimiter,
// reserved), so every input gets one deterministic error.
//
// The package knows nothing about quotas. It holds no state: every function is pure and
// safe for concurrent use.
package naming
