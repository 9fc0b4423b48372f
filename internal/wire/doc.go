// Package wire is the byte form poolgate's snapshots share: a frame (a magic string
// naming what is inside, a format version, the body, a CRC-32 of all of it) and a body
// of unsigned and signed varints, byte strings and booleans, written in a fixed order by
// the package that owns the value.
//
// Why this form: a snapshot of a gate with a hundred thousand queues, nodes and running
// workloads must encode and decode well under a second and stay small; varints do that
// in one pass with no reflection. The encoding is deterministic because every writer
// emits fields in a fixed order and sorts what has no order of its own (maps). The frame
// tells a snapshot of something else (magic), of another format (version) and a
// corrupt or truncated one (CRC, lengths) apart before any of the body is read.
//
// A Reader never panics and never allocates more than its input could hold: every
// length is checked against the bytes left. Its first error sticks; the caller reads on
// and checks Err once, then builds nothing from a failed read.
//
// It does not know what a snapshot holds: each package writes and reads its own fields
// and checks the values it reads back.
//
// Concurrency: a Writer or Reader is used by one goroutine at a time.
package wire
