// Package admission is poolgate's front door: the gate that composes naming, quota,
// gang and topology into decisions a platform acts on, on every submit and every
// scheduling cycle.
//
// The static OSMO gate, Check, decides a submission against a pool snapshot in SPEC §5's
// order: the name parses and the pool exists, closed subpools, MAINTENANCE (admins pass),
// then a per-task-group cap at HIGH and NORMAL priority. LOW is never capped, OFFLINE
// never blocks, and an Unlimited quota has no cap. The check is static, request against
// cap: a request that fits the cap but not today's free quota is admitted and waits in
// the scheduler. It allocates nothing on the way to a decision; Message builds the OSMO
// text only when asked.
//
// Principal answers who may submit and administer, from pool roles, through naming's
// resolution by parsed parent: osmo-team-user reaches team and team--a, never team2.
//
// Decisions are values (Outcome, a typed Reason, the numbers); errors are for malformed
// input only.
//
// Decisions where the spec is silent:
//   - A parent with subpools that rejects a group over its unallocated GPUs says so in
//     its own words ("has 10 unallocated GPUs (Total: 100)"), since "guaranteed" would
//     misstate what the parent keeps; pools without subpools and subpools keep today's
//     OSMO text byte for byte.
//   - An admin of a pool may also submit to it.
//
// This package does not re-implement what the others own: names come from naming,
// pool state from quota.PoolSet.
//
// Concurrency: Check and Principal's methods are pure and may run concurrently, as long
// as nothing writes the PoolSet they read.
package admission
