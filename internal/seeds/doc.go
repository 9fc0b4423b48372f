// Package seeds holds the example specs, taken from the designs poolgate follows, that
// tests, examples and the tour share, written once so that they cannot drift apart.
//
// It holds constants only.
package seeds
