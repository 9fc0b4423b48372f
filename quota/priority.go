package quota

import (
	"strconv"

	"github.com/poolgate/poolgate/internal/enum"
)

// Priority is a workflow priority: HIGH, NORMAL or LOW.
//
// HIGH and NORMAL are guaranteed: they count toward a pool's quota, are never preempted
// and never borrow. LOW is opportunistic: it does not count toward quota, may borrow idle
// GPUs, and may be preempted.
//
// The zero value is Normal, the default priority, so a Workflow or a decoded document
// that leaves the priority out gets NORMAL. The numeric values order the priorities
// (Low < Normal < High), which Compare exposes.
type Priority int8

// The three priorities.
const (
	// Low is preemptible, may borrow, and does not count toward quota.
	Low Priority = -1
	// Normal is the default: guaranteed, within quota only.
	Normal Priority = 0
	// High is guaranteed like Normal and is served first.
	High Priority = 1
)

// ParsePriority parses HIGH, NORMAL or LOW in any letter case. The empty string is an
// error here; UnmarshalText maps it to the default, Normal.
func ParsePriority(s string) (Priority, error) {
	switch {
	case enum.EqualFold(s, "HIGH"):
		return High, nil
	case enum.EqualFold(s, "NORMAL"):
		return Normal, nil
	case enum.EqualFold(s, "LOW"):
		return Low, nil
	}
	return Normal, &ParseError{What: "priority", Input: s, Reason: "must be HIGH, NORMAL or LOW"}
}

// IsValid reports whether p is High, Normal or Low.
func (p Priority) IsValid() bool { return p >= Low && p <= High }

// String returns HIGH, NORMAL or LOW, and Priority(n) for an invalid value.
func (p Priority) String() string {
	switch p {
	case High:
		return "HIGH"
	case Normal:
		return "NORMAL"
	case Low:
		return "LOW"
	}
	return "Priority(" + strconv.Itoa(int(p)) + ")"
}

// Compare returns -1 when p ranks below q, 0 when they are equal and +1 when p ranks
// above q (HIGH > NORMAL > LOW). A queue served highest first sorts by q.Compare(p).
func (p Priority) Compare(q Priority) int {
	switch {
	case p < q:
		return -1
	case p > q:
		return 1
	}
	return 0
}

// Guaranteed reports whether p counts toward a pool's quota (HIGH and NORMAL): such
// work is never preempted and never borrows.
func (p Priority) Guaranteed() bool { return p == High || p == Normal }

// Preemptible reports whether work at p may be preempted and may borrow (LOW only).
func (p Priority) Preemptible() bool { return p == Low }

// MarshalText implements encoding.TextMarshaler. An invalid priority is an error, so
// that it is never persisted.
func (p Priority) MarshalText() ([]byte, error) {
	if !p.IsValid() {
		return nil, &ParseError{What: "priority", Input: p.String(), Reason: "must be HIGH, NORMAL or LOW"}
	}
	return []byte(p.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: ParsePriority, except that empty
// text is the default priority, Normal.
func (p *Priority) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*p = Normal
		return nil
	}
	v, err := ParsePriority(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
