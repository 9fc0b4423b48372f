// Package seeds holds the design seeds' example specs that tests, examples and the tour
// share, written once so that they cannot drift apart.
//
// It holds constants only.
package seeds
