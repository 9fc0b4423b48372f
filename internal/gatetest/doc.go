// Package gatetest builds the small gates that the tests of packages over the
// admission gate's public API (explain, forecast) work on: pools by "name:quota",
// racks of nodes by "rack:gpus,gpus", plain workloads and rack-bound gangs at minutes
// after one instant, and random gates of the three kinds a host builds (pools, pools
// on a cluster, a quota tree). It is for tests only: every helper fails the test it is
// given on an error, and nothing here is a rule of the gate.
//
// It keeps no state; each call builds values of its own, so tests may run in parallel.
package gatetest
