// Package numfmt writes the numbers of the bench reports as people read them: counts
// with thousands separators, one rule for every report (the replay's, the what-if's).
// It parses nothing and knows no units.
//
// It keeps no state: its functions may be called from any goroutine.
package numfmt
