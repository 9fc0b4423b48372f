// Package gen holds what the property tests of every package share: test parameters
// that log their seed, and generators for the domain's values (names, quota trees,
// gang trees, clusters), one file per domain.
//
// It is imported by tests only, so it may read the clock for fresh seeds.
package gen
