// Package gen holds what the property tests of every package share: test parameters
// that log their seed, and generators for the domain's values (names, quota trees,
// gang trees, clusters), one file per domain.
//
// It is imported by tests only, so it may read the clock for fresh seeds. It states no
// rule of the packages it feeds: what a generated value must satisfy is for each
// property to check.
//
// Concurrency: its package variables are read-only tables and its generators keep no
// state between calls, so properties may run in parallel.
package gen
