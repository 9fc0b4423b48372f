// Package seeds holds the example specs, taken from the designs poolgate follows, that
// tests, examples and the tour share, written once so that they cannot drift apart.
//
// It holds constants only: it parses and checks none of them (the tests and examples
// that use a spec do), and constants are safe for concurrent use.
package seeds
